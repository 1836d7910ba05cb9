/** What this package takes from the Claude Agent SDK (a peer: the copy the app itself loads):
 * the types it implements, and `foldSessionSummary`, the SDK's own fold of appended entries
 * into the summary its `listSessions` reads (opaque to a store: kept as the SDK returns it). */
export {
  foldSessionSummary,
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
  type SessionSummaryEntry,
} from "@anthropic-ai/claude-agent-sdk";
