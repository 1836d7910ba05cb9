/** The Claude Agent SDK's types this package implements (types only: the SDK is a peer). */
export type { SessionKey, SessionStore, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
