/**
 * What opencode keeps, as this package reads it (opencode's `session/session.sql.ts`,
 * `session/message-v2.ts`, `storage/json-migration.ts`). Its SQLite database
 * (`~/.local/share/opencode/opencode.db`) has a `session` table and, per session, `message` rows
 * whose `data` is the message's JSON without `id` and `sessionID`, and `part` rows whose `data`
 * is the part's JSON without `id`, `messageID` and `sessionID`. Older versions kept the same
 * JSON in files, ids included: `storage/session/<project>/<session>.json`,
 * `storage/message/<session>/<message>.json`, `storage/part/<message>/<part>.json` (opencode's
 * own migration takes each id from the file's name, not from its JSON; so does this package).
 * Both readers give a message with its parts in opencode's order as one `OpencodeRecord`.
 */

/** A JSON object as opencode wrote it. */
export type Obj = { [key: string]: unknown };

/** One opencode message with its parts, in order (parts by id, as opencode sorts them). */
export interface OpencodeRecord {
  /** The message's id and session, and its JSON (role, time, modelID, tokens, cost, …). */
  message: { id: string; sessionId: string; data: Obj };
  parts: { id: string; data: Obj }[];
  /** What could not be read (a row's or a file's JSON that is broken): the message's data (then
   * it is `{}` and nothing of it is stored) or a part (then that part is left out). */
  problems?: string[];
}

/** A record where the importer reports its problems: the message's table (or folder) and id. */
export interface OpencodeRow {
  table: string;
  rowId: string;
  value: OpencodeRecord;
}

/** A session as opencode keeps it: the `session` row, or a storage session file's JSON (then
 * the fields are camelCase: `parentID`, `time.created`; both are read). */
export type OpencodeSessionInfo = Obj;

/** The name of the format and of its originals. */
export const OPENCODE_FORMAT = "opencode";

/** `value` as an object, or an empty one. */
export function obj(value: unknown): Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : {};
}

/** `value` when it is a non-empty string. */
export function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A count opencode recorded: a non-negative safe integer, else 0. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** Epoch milliseconds (opencode's unit) as sessiondb's epoch seconds. */
export function seconds(ms: unknown): number | undefined {
  return typeof ms === "number" && Number.isFinite(ms) && ms >= 0 ? ms / 1000 : undefined;
}

/** Notes what of a record could not be read. */
export function addProblem(record: OpencodeRecord, problem: string): void {
  if (record.problems === undefined) record.problems = [problem];
  else record.problems.push(problem);
}
