/**
 * @sessiondb/claude-agent-sdk — the Claude Agent SDK's SessionStore on sessiondb: transcripts
 * mirrored into SQLite (or a libSQL server), searchable, with usage per model, and loaded back
 * for resume.
 */
export { InvalidInputError } from "@sessiondb/core";
export {
  CLAUDE_AGENT_SDK_SOURCE,
  SessionDbSessionStore,
  type SessionDbSessionStoreOptions,
} from "./session-store.js";
