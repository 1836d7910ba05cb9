/**
 * @sessiondb/formats — other programs' message shapes as sessiondb rows, one module per shape,
 * shared by the framework bindings and the importers.
 */

// The AI SDK's UIMessage (ai-sdk/): used by @sessiondb/ai-sdk.
export {
  AI_SDK_FORMAT,
  mapUIMessage,
  toolRowKey,
  type UIMessageJson,
  type UIPartJson,
  uiMessageMapper,
  uiMessageOf,
} from "./ai-sdk/index.js";
// Claude Code transcript lines (claude-code/): read by the importer and @sessiondb/claude-agent-sdk.
export {
  CLAUDE_CODE_FORMAT,
  ClaudeCodeLines,
  childSessionId,
  claudeCode,
  type LineSession,
} from "./claude-code/index.js";
// Codex rollout files (codex/): read by the importer.
export { codex } from "./codex/index.js";
// Hermes Agent's state.db (hermes/): read by the importer.
export { hermes } from "./hermes/index.js";
// The importer (import/): importFrom(store, format, roots?) and the formats it takes by name.
export {
  databaseFormats,
  type ImportFormat,
  type ImportOptions,
  type ImportProblem,
  type ImportProgress,
  type ImportResult,
  type ImportTarget,
  importFrom,
  isDatabaseFormat,
  lineFormats,
} from "./import/index.js";
export type {
  DatabaseFormat,
  DatabaseRecord,
  DatabaseSession,
  ItemMapper,
  LineFormat,
  ListingProblem,
  MappedItem,
  SessionFacts,
  SessionFolder,
} from "./mapped.js";
// OpenAI Agents / Responses items (openai/): used by @sessiondb/openai-agents and by codex/.
export type { ItemPlace } from "./openai/index.js";
export { OPENAI_AGENTS_FORMAT, OpenAIItems, openaiAgentsMapper } from "./openai/index.js";
// opencode's database and JSON storage (opencode/): read by the importer.
export { OPENCODE_FORMAT, OpencodeMessages, opencode } from "./opencode/index.js";
// List prices (prices/): cost estimates for usage a format records without one.
export { ESTIMATED, estimateUsage, type ModelPrice, PRICES_AS_OF, priceOf } from "./prices/index.js";
// Running one body on a sync or an async store (store-calls.ts): used by the bindings.
export { type AnyStore, atomically, runOn, type StoreOperation, storeOption } from "./store-calls.js";
