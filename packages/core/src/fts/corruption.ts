/**
 * Telling FTS-scoped corruption (fail open: detach the index, keep writing) from structural
 * corruption (the Store goes read-only). Drivers that expose codes say SQLITE_CORRUPT_VTAB, and
 * FTS5 usually says "fts5: …" — but SQLite's text for CORRUPT_VTAB can also be the generic
 * "database disk image is malformed" (seen for a corrupt segment found while flushing), and
 * Deno's node:sqlite gives only that text. Such a plain CORRUPT is "ambiguous", and a targeted
 * probe replays the FTS half of a write in a transaction that is always rolled back.
 */

import { WRITE_PATIENCE_MS } from "../constants.js";
import { exec, get, type Op, run, STATE, transaction } from "../engine/effects.js";
import { SqliteError } from "../errors.js";
import { patient, read, write } from "../policy/calls.js";
import type { FtsIndexDef } from "./projection.js";
import { loadSnapshot, presentIndexes } from "./state.js";
import { detachIndexOp } from "./triggers.js";

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

/** How the always-rolled-back probe transaction ends: thrown out of its body, so every
 * runner rolls it back, and caught by the probe. */
class ProbeFinished {
  constructor(readonly reproduced: boolean) {}
}

/**
 * True when the FTS objects alone reproduce a corruption error. One small write transaction,
 * always rolled back: a MATCH that decodes each index's structure record, then a dummy row
 * inserted into each index and flushed by a SAVEPOINT (FTS5 writes its pending data to its
 * shadow tables at every savepoint, which is where a write meets a corrupt structure or a
 * corrupt segment it has to merge). Cost: a few page reads and writes that never commit.
 * Never touches `messages`, so success means the canonical tables were not what failed.
 * A transaction of the engine, not a Store write, so a failure cannot re-enter fail-open.
 */
export function* ftsReproducesCorruption(defs: readonly FtsIndexDef[]): Op<boolean> {
  try {
    yield* patient(() => transaction("write", () => probeIndexes(defs)), {
      budgetMs: WRITE_PATIENCE_MS,
      jitter: "write",
    });
    return false;
  } catch (error) {
    if (error instanceof ProbeFinished) return error.reproduced;
    // Could not run the probe at all (busy past patience, read-only file, …): not proven FTS.
    return false;
  }
}

/** The probe's body: ends by throwing its answer, so its transaction is rolled back. */
function* probeIndexes(defs: readonly FtsIndexDef[]): Op<never> {
  for (const def of defs) {
    try {
      yield* get(`SELECT rowid FROM ${def.table} WHERE ${def.table} MATCH ? LIMIT 1`, '"sessiondb probe"');
      const cols = def.columns.map((c) => c.name);
      const values = cols.map(() => "?").join(", ");
      yield* run(
        `INSERT INTO ${def.table}(rowid, ${cols.join(", ")}) VALUES (-1, ${values})`,
        ...cols.map(() => "sessiondb probe"),
      );
      yield* exec("SAVEPOINT sessiondb_fts_probe");
      yield* exec("RELEASE sessiondb_fts_probe");
    } catch (error) {
      if (isCorrupt(error)) throw new ProbeFinished(true);
      throw error;
    }
  }
  throw new ProbeFinished(false);
}

/** What fail-open reads and sets of the store's policy state (policy/state.ts), named here:
 * the policy calls fail-open only as the function the stores hand it (`failOpen`), so neither
 * module imports the other. */
interface FailOpenState {
  readonly readOnly: boolean;
  failingOpen: boolean;
}

/**
 * Fail-open: if `error` is FTS-scoped corruption (by code or message, or a plain CORRUPT the
 * probe reproduces on the FTS objects alone), detach the index in one transaction and return
 * true; the caller then retries its canonical write once, which now runs without FTS triggers —
 * the retry itself is the final proof (a structural failure fails it again). Never rebuilds.
 */
export function* failOpen(error: unknown): Op<boolean> {
  const state = (yield STATE) as FailOpenState;
  // The detach is itself a write, whose failure would call fail-open again: no re-entry.
  if (state.readOnly || state.failingOpen) return false;
  const kind = classifyFtsError(error);
  if (kind === "other") return false;
  state.failingOpen = true;
  try {
    const defs = presentIndexes(yield* read(loadSnapshot));
    if (defs.length === 0) return false;
    if (kind === "ambiguous" && !(yield* ftsReproducesCorruption(defs))) return false;
    const reason = `FTS corruption on a write: ${error instanceof Error ? error.message : String(error)}`;
    yield* write(() => detachIndexOp(reason));
    return true;
  } catch {
    // Could not even detach: the caller's original error stands.
    return false;
  } finally {
    state.failingOpen = false;
  }
}
