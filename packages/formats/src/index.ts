/** @sessiondb/formats — work in progress (skeleton). */
export type { ItemMapper, LineFormat, MappedItem, SessionFacts } from "./mapped.js";
