/** @sessiondb/claude-agent-sdk — work in progress (skeleton). */
export {};
