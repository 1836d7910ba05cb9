/** The statements the store sends for one append (session counters, then one INSERT per
 * message): the raw side of the append benches, in a module of its own so that the whole-process
 * raw script (open-raw.ts) loads them without the corpus generator. */
export const RAW_UPDATE_SESSION_SQL = `UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?,
       last_activity_at = max(coalesce(last_activity_at, ?), ?) WHERE id = ?`;

export const RAW_INSERT_MESSAGE_SQL = `INSERT INTO messages (session_id, role, content, content_parts, tool_name, tool_call_id, tool_calls,
       timestamp, token_count, finish_reason, reasoning, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The message the whole-process append scripts write (open-store.ts, open-raw.ts). */
export const APPEND_TEXT = "a hook appends one message and exits";
