/** The importer of LineFormats (Claude Code, Codex): see engine.ts. */
export {
  type ImportOptions,
  type ImportProblem,
  type ImportProgress,
  type ImportResult,
  type ImportTarget,
  importFrom,
} from "./engine.js";
export { lineFormats } from "./formats.js";
