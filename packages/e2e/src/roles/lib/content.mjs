/**
 * Message bodies the writers append and the checker regenerates: a body is a pure function of
 * (token, role, length), so the checker can tell a stored row from a torn or altered one.
 *
 * Tokens are single unicode61 words, unique per appended message: `zq<writer>w<n>k` (decimal
 * numbers between fixed letters, so no token is a substring of another).
 * Tool rows longer than the 8192-character index prefix also carry a tail token after the prefix
 * (`zt…`), which word search must not find and a tool-role search (full-content LIKE) must.
 */
import { hash32, Rng } from "./prng.mjs";

/** The index prefix for tool rows (spec §5, TOOL_CONTENT_PREFIX_CHARS). */
export const TOOL_PREFIX_CHARS = 8192;

/** Matches every head and tail token in a body. */
export const TOKEN_RE = /\bz[qt][0-9a-z]+\b/g;

const WORDS = [
  "agent",
  "session",
  "tool",
  "result",
  "error",
  "retry",
  "commit",
  "file",
  "buffer",
  "index",
  "search",
  "query",
  "cursor",
  "stream",
  "token",
  "config",
  "value",
  "return",
  "async",
  "await",
  "function",
  "module",
  "package",
  "build",
  "deploy",
  "cache",
  "lock",
  "journal",
  "page",
  "block",
];
const CJK = ["数据库", "会话", "索引", "检索", "日志", "工具"];

/** The tail token of a long tool row, derived from its head token. */
export function tailToken(token) {
  return `zt${token.slice(2)}`;
}

/** True when a tool row of this length carries a tail token beyond the index prefix. */
export function hasTail(role, length) {
  return role === "tool" && length > TOOL_PREFIX_CHARS + 64;
}

/** The body of the message carrying `token`: exactly `length` characters. */
export function makeContent(token, role, length) {
  const rng = new Rng(hash32(`${token}/${role}/${length}`));
  const text = `${token} `;
  const tail = hasTail(role, length) ? ` ${tailToken(token)} ` : "";
  const tailAt = tail ? TOOL_PREFIX_CHARS + 16 : -1;
  let tailPlaced = false;
  const parts = [text];
  let size = text.length;
  while (size < length) {
    let piece;
    if (tail && !tailPlaced && size >= tailAt) {
      piece = tail;
      tailPlaced = true;
    } else {
      const word = role !== "tool" && rng.chance(0.05) ? rng.pick(CJK) : rng.pick(WORDS);
      piece = rng.chance(0.1) ? `${word}\n` : `${word} `;
    }
    parts.push(piece);
    size += piece.length;
  }
  return parts.join("").slice(0, length);
}
