/** @sessiondb/formats — work in progress (skeleton). */
export type { ItemMapper, MappedItem, SessionFacts } from "./mapped.js";
