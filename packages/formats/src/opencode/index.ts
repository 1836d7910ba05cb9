/** opencode's sessions (its SQLite database and its older JSON storage) as sessiondb rows. */
export { type Connection, databaseRecords, databaseSessions, type OpencodeSessionEntry } from "./database.js";
export { OpencodeMessages, opencodeSessionFacts } from "./messages.js";
export { OPENCODE_FORMAT, type OpencodeRecord, type OpencodeRow } from "./records.js";
export { type OpencodeListed, OpencodeSource } from "./source.js";
export { storageRecords, storageSessions } from "./storage.js";
