/** Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`) as a LineFormat. */
import type { LineFormat } from "../mapped.js";
import { CLAUDE_CODE_FORMAT, ClaudeCodeLines } from "./lines.js";

export { CLAUDE_CODE_FORMAT, ClaudeCodeLines, type LineSession } from "./lines.js";

const MAIN = /^[^/]+\/([^/]+)\.jsonl$/;
const SUBAGENT = /^[^/]+\/([^/]+)\/(subagents\/[^/]+)\.jsonl$/;

/** The session id of a subagent's transcript: its main session's id and its place under it
 * (`<session>/subagents/agent-<id>`), the same as a SessionStore key's subpath gives. */
export function childSessionId(sessionId: string, subpath: string): string {
  return `${sessionId}/${subpath}`;
}

/** The Claude Code format: `sessiondb import --from claude-code`. */
export const claudeCode: LineFormat = {
  name: CLAUDE_CODE_FORMAT,
  defaultRoots: [".claude/projects"],
  isSessionFile: (relativePath) => MAIN.test(relativePath) || SUBAGENT.test(relativePath),
  mapper(relativePath) {
    const sub = SUBAGENT.exec(relativePath);
    if (sub !== null)
      return new ClaudeCodeLines({
        id: childSessionId(sub[1] as string, sub[2] as string),
        parentSessionId: sub[1] as string,
      });
    // A main file's lines name their session; the file name is the same id.
    const main = MAIN.exec(relativePath);
    return new ClaudeCodeLines(main === null ? {} : { id: main[1] as string });
  },
};
