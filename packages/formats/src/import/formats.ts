/** The formats `sessiondb import --from` knows, by name: files of JSON lines, and databases. */
import { claudeCode } from "../claude-code/index.js";
import { codex } from "../codex/index.js";
import { hermes } from "../hermes/index.js";
import type { DatabaseFormat, LineFormat } from "../mapped.js";
import { opencode } from "../opencode/index.js";

export const lineFormats: ReadonlyMap<string, LineFormat> = new Map([
  [claudeCode.name, claudeCode],
  [codex.name, codex],
]);

export const databaseFormats: ReadonlyMap<string, DatabaseFormat> = new Map([
  [hermes.name, hermes],
  [opencode.name, opencode],
]);
