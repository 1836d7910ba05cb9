/** @sessiondb/openai-agents — work in progress (skeleton). */
export {};
