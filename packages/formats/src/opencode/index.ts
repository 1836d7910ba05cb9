/** opencode's sessions (its SQLite database and its older JSON storage) as sessiondb rows. */
export { OpencodeMessages, opencodeSessionFacts } from "./messages.js";
export { OPENCODE_FORMAT, type OpencodeRecord } from "./records.js";
export { type OpencodeSessionEntry, OpencodeSource, type ReadItem } from "./source.js";
