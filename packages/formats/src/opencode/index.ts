/** opencode's sessions (its SQLite database, its older JSON storage) as a DatabaseFormat. */
export { opencode } from "./format.js";
export { OpencodeMessages } from "./messages.js";
export { OPENCODE_FORMAT } from "./records.js";
