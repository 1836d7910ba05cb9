/** The importers: of LineFormats (Claude Code, Codex: engine.ts) and of DatabaseFormats
 * (Hermes: database.ts), both behind importFrom (from.ts). */

export { databaseFormats, lineFormats } from "./formats.js";
export { type ImportFormat, importFrom, isDatabaseFormat } from "./from.js";
export type {
  ImportOptions,
  ImportProblem,
  ImportProgress,
  ImportResult,
  ImportTarget,
} from "./result.js";
