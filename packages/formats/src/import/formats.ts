/** The LineFormats `sessiondb import --from` knows, by name. */
import { claudeCode } from "../claude-code/index.js";
import { codex } from "../codex/index.js";
import type { LineFormat } from "../mapped.js";

export const lineFormats: ReadonlyMap<string, LineFormat> = new Map([
  [claudeCode.name, claudeCode],
  [codex.name, codex],
]);
