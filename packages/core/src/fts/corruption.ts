/**
 * Telling FTS-scoped corruption (fail open: detach the index, keep writing) from structural
 * corruption (the Store goes read-only). Drivers that expose codes say SQLITE_CORRUPT_VTAB, and
 * FTS5 usually says "fts5: …" — but SQLite's text for CORRUPT_VTAB can also be the generic
 * "database disk image is malformed" (seen for a corrupt segment found while flushing), and
 * Deno's node:sqlite gives only that text. Such a plain CORRUPT is "ambiguous", and a targeted
 * probe replays the FTS half of a write in a transaction that is always rolled back.
 */

import { WRITE_PATIENCE_MS } from "../constants.js";
import { SqliteError } from "../errors.js";
import { withPatience } from "../locks/patience.js";
import type { StoreContext } from "../store/context.js";
import { inTransaction } from "../transaction.js";
import type { FtsIndexDef } from "./projection.js";
import { presentIndexes, readSnapshot } from "./state.js";
import { detachIndex } from "./triggers.js";

/** How an error relates to the FTS index. */
export type FtsErrorKind = "fts" | "ambiguous" | "other";

/** FTS5's own messages, and a failing FTS vtable constructor, name the index. */
const NAMES_FTS = /fts5|messages_fts|vtable constructor failed/i;

/** Classify `error` by code and message alone (no I/O). */
export function classifyFtsError(error: unknown): FtsErrorKind {
  if (!(error instanceof SqliteError)) return "other";
  if (error.resultCode === "CORRUPT_VTAB") return "fts";
  if (error.resultCode === "CORRUPT") return NAMES_FTS.test(error.message) ? "fts" : "ambiguous";
  // Garbage in an FTS5 segment can decode as an absurd size, and SQLite then reports NOMEM:
  // worth the probe, which tells it from a real shortage of memory.
  if (error.resultCode === "NOMEM") return "ambiguous";
  // A missing tokenizer or module on a table another runtime created fails the same way on
  // every write; detaching keeps the canonical writes going.
  if (error.resultCode === "ERROR" && /vtable constructor failed: messages_fts/i.test(error.message))
    return "fts";
  return "other";
}

const isCorrupt = (error: unknown) =>
  error instanceof SqliteError && ["CORRUPT", "CORRUPT_VTAB", "NOMEM"].includes(error.resultCode);

/**
 * True when the FTS objects alone reproduce a corruption error. One small write transaction,
 * always rolled back: a MATCH that decodes each index's structure record, then a dummy row
 * inserted into each index and flushed by a SAVEPOINT (FTS5 writes its pending data to its
 * shadow tables at every savepoint, which is where a write meets a corrupt structure or a
 * corrupt segment it has to merge). Cost: a few page reads and writes that never commit.
 * Never touches `messages`, so success means the canonical tables were not what failed.
 * Runs on the raw connection, outside `ctx.write`, so a failure cannot re-enter fail-open.
 */
export function ftsReproducesCorruption(ctx: StoreContext, defs: readonly FtsIndexDef[]): boolean {
  const probe = (): boolean =>
    inTransaction(ctx.conn, "write", () => probeIndexes(ctx, defs), { rollback: true });
  try {
    return withPatience(probe, { budgetMs: WRITE_PATIENCE_MS, jitter: "write", now: () => ctx.now() });
  } catch {
    // Could not run the probe at all (busy past patience, read-only file, …): not proven FTS.
    return false;
  }
}

/** The probe's body, inside its always-rolled-back transaction. */
function probeIndexes(ctx: StoreContext, defs: readonly FtsIndexDef[]): boolean {
  for (const def of defs) {
    try {
      ctx.conn
        .prepare(`SELECT rowid FROM ${def.table} WHERE ${def.table} MATCH ? LIMIT 1`)
        .all('"sessiondb probe"');
      const cols = def.columns.map((c) => c.name);
      const values = cols.map(() => "?").join(", ");
      ctx.conn
        .prepare(`INSERT INTO ${def.table}(rowid, ${cols.join(", ")}) VALUES (-1, ${values})`)
        .run(...cols.map(() => "sessiondb probe"));
      ctx.conn.exec("SAVEPOINT sessiondb_fts_probe");
      ctx.conn.exec("RELEASE sessiondb_fts_probe");
    } catch (error) {
      if (isCorrupt(error)) return true;
      throw error;
    }
  }
  return false;
}

/**
 * Fail-open: if `error` is FTS-scoped corruption (by code or message, or a plain CORRUPT the
 * probe reproduces on the FTS objects alone), detach the index in one transaction and return
 * true; the caller then retries its canonical write once, which now runs without FTS triggers —
 * the retry itself is the final proof (a structural failure fails it again). Never rebuilds.
 */
export function failOpen(ctx: StoreContext, error: unknown): boolean {
  if (ctx.readOnly) return false;
  const kind = classifyFtsError(error);
  if (kind === "other") return false;
  try {
    const defs = presentIndexes(ctx.read(() => readSnapshot((sql) => ctx.statement(sql))));
    if (defs.length === 0) return false;
    if (kind === "ambiguous" && !ftsReproducesCorruption(ctx, defs)) return false;
    const reason = `FTS corruption on a write: ${error instanceof Error ? error.message : String(error)}`;
    ctx.write(() => detachIndex(ctx, reason));
    return true;
  } catch {
    // Could not even detach: the caller's original error stands.
    return false;
  }
}
