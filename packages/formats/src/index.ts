/** @sessiondb/formats — work in progress (skeleton). */

// --- OpenAI Agents / Responses items and Codex rollouts (openai helper) ---
export { codex } from "./codex/index.js";
export type { ItemMapper, LineFormat, MappedItem, SessionFacts } from "./mapped.js";
export type { ItemPlace } from "./openai/index.js";
export { OPENAI_AGENTS_FORMAT, OpenAIItems, openaiAgentsMapper } from "./openai/index.js";
// --- end OpenAI / Codex ---
