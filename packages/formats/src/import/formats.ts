/** The LineFormats `sessiondb import --from` knows, by name. */
import { codex } from "../codex/index.js";
import type { LineFormat } from "../mapped.js";

export const lineFormats: ReadonlyMap<string, LineFormat> = new Map([[codex.name, codex]]);
