/** @sessiondb/ai-sdk — work in progress (skeleton). */
export {};
