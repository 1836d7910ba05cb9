/** The raw side of a resume: a session's last N rows, newest first, through idx_messages_session
 * — the read `getMessages(session, { last })` makes (it reverses them into id order). */
export const RESUME_SQL =
  "SELECT * FROM messages WHERE session_id = ? AND active = 1 ORDER BY id DESC LIMIT ?";
