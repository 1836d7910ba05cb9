/**
 * @sessiondb/openai-agents — the OpenAI Agents SDK's `Session` on sessiondb: every item of an
 * agent's history in a sessiondb store (SQLite on Node, Bun, Deno, or a libSQL server), given
 * back exactly, and readable by sessiondb's search, CLI and `serve`.
 */

export { InvalidInputError } from "@sessiondb/core";
export { SessionDbSession, type SessionDbSessionOptions } from "./session.js";
