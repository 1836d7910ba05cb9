/** Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as a LineFormat. */
import type { LineFormat } from "../mapped.js";
import { CODEX_FORMAT, CodexLines } from "./lines.js";

const ROLLOUT = /^\d{4}\/\d{2}\/\d{2}\/rollout-[^/]+\.jsonl$/;

/** The Codex format: `sessiondb import --from codex`. */
export const codex: LineFormat = {
  name: CODEX_FORMAT,
  defaultRoots: [".codex/sessions"],
  isSessionFile: (relativePath) => ROLLOUT.test(relativePath),
  mapper: (relativePath) => new CodexLines(relativePath),
};
