/**
 * The one savepoint of both runners: a write inside a transaction runs inside a SAVEPOINT, so a
 * body that throws undoes only its own statements and the caller decides whether the outer body
 * goes on. Written as an operation of `exec` statements, so the sync runner sends them on its
 * connection and the async runner as statements of its executor's transaction (whose protocol
 * carries no BEGIN/COMMIT strings, but does carry savepoints).
 */
import { exec, type Op } from "./effects.js";

/** Run `body` inside a savepoint named for its `depth` (1: directly inside the outermost
 * transaction). */
export function* savepoint<T>(depth: number, body: () => Op<T>): Op<T> {
  const name = `sessiondb_nested_${depth}`;
  yield* exec(`SAVEPOINT ${name}`);
  try {
    const result = yield* body();
    yield* exec(`RELEASE ${name}`);
    return result;
  } catch (error) {
    try {
      yield* exec(`ROLLBACK TO ${name}`);
      yield* exec(`RELEASE ${name}`);
    } catch {
      // The engine already rolled the whole transaction back (some errors do); the outer
      // transaction's own rollback finds nothing to undo.
    }
    throw error;
  }
}
