/**
 * @sessiondb/ai-sdk — the Vercel AI SDK's chat persistence (`loadChat` / `saveChat` over
 * UIMessages) on any sessiondb store: the embedded one (Node, Bun, Deno) or a libSQL server.
 * Every name here is a decision (test/exports.test.ts pins the list).
 */

export type { AnyStore } from "@sessiondb/formats";
export { type LoadChatOptions, loadChat } from "./load.js";
export { AI_SDK_SOURCE, type SaveChatResult, saveChat } from "./save.js";
