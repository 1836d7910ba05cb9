/**
 * @sessiondb/libsql — sessiondb on a libSQL server (sqld, or a hosted database such as Turso)
 * over @libsql/client: `openStore(url, options?)` answers with the same Store API as the embedded
 * adapters, every method returning a promise. Each export is listed in the README;
 * test/exports.test.ts pins the list.
 *
 * @example
 * import { openStore } from "@sessiondb/libsql";
 * const store = await openStore("http://127.0.0.1:8080");
 * const { id } = await store.createSession({ source: "gateway" });
 * await store.appendMessage(id, { role: "user", content: "hello" });
 * await store.close();
 */
export type {
  AsyncStoreOptions,
  CreateSessionInput,
  FtsStatus,
  IntegrityReport,
  Message,
  MessageInput,
  Role,
  SearchHit,
  SearchOptions,
  SearchResult,
  Session,
  SessionDbErrorCode,
  SessionSummary,
  UsageInput,
  UsageRow,
} from "@sessiondb/core";
// The Store and the errors callers catch, from core, so one import is enough.
export {
  AsyncStore,
  InvalidInputError,
  SchemaOutdatedError,
  SchemaTooNewError,
  SessionDbError,
  SessionNotFoundError,
  SqliteError,
  StoreBusyError,
  StoreClosedError,
  StoreCorruptError,
  StoreFullError,
  StoreOpenError,
  StoreReadOnlyError,
  UnsafeSqliteError,
} from "@sessiondb/core";
export type { LibsqlExtendedCode } from "./errors.js";
export { type LibsqlStoreOptions, openStore } from "./open.js";
