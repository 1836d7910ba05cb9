/**
 * @sessiondb/libsql — sessiondb on a libSQL server (sqld, Turso) over @libsql/client.
 *
 * For now: the executor core's async runner drives (the async Store builds on it).
 */

export type { LibsqlExtendedCode } from "./errors.js";
export {
  type ExecuteResult,
  type LibsqlExecutor,
  type LibsqlExecutorOptions,
  type LibsqlStatements,
  openLibsqlExecutor,
} from "./executor.js";
