/**
 * `store.vacuum()`: give the space of deleted sessions back to the file system without stalling
 * the writers that share the store.
 *
 * Stores are created with `auto_vacuum = INCREMENTAL` (store/open.ts): freed pages wait on
 * SQLite's free list, and `PRAGMA incremental_vacuum(N)` moves N of them to the end of the file
 * and cuts it there. Vacuum runs that as a paced job (maintenance/paced.ts): short write
 * transactions sized to hold the lock ~15 ms while others write, with a pause between them. In
 * WAL mode the file itself shrinks at the next checkpoint.
 *
 * A store created before that (`auto_vacuum = NONE`) can only be compacted by a full `VACUUM`,
 * which rewrites the whole file while holding the write lock — writers wait for all of it, with
 * their patience. So it runs only when asked for (`{ full: true }`); it also switches the store to
 * incremental, so it is needed once.
 */
import { PACE_MIN_PAUSE_MS } from "../constants.js";
import { exec, get, local, now, type Op } from "../engine/effects.js";
import { DriverUnavailableError, hasResultCode } from "../errors.js";
import * as valid from "../model/validate.js";
import { guard, read } from "../policy/calls.js";
import type { StepMemory } from "../policy/state.js";
import { paced, type StepTiming, timedWrite } from "./paced.js";

/** Where a running vacuum stands, in pages of the free list it found (or that grew meanwhile). */
export interface VacuumProgress {
  freedPages: number;
  totalPages: number;
  done: boolean;
}

export interface VacuumOptions {
  /** Called after each step of an incremental vacuum. */
  onProgress?: ((progress: VacuumProgress) => void) | null | undefined;
  /** Stop between steps; what the steps freed stays freed. */
  signal?: AbortSignal | null | undefined;
  /** Rewrite the whole store with `VACUUM` (holds the write lock for all of it) — the only way
   * to compact a store created before incremental vacuum, and it converts that store. */
  full?: boolean | null | undefined;
}

export interface VacuumResult {
  /** "incremental": paced steps; "full": one VACUUM; "none": nothing done (see `note`). */
  method: "incremental" | "full" | "none";
  /** The database's size (pages × page size) before and after; in WAL mode the file shrinks to
   * it at the next checkpoint. */
  bytesBefore: number;
  bytesAfter: number;
  /** Free space still inside the file afterwards (pages on SQLite's free list). */
  reclaimableBytes: number;
  /** Why nothing was done, when `method` is "none". */
  note?: string;
  durationMs: number;
}

/** SQLite's `PRAGMA auto_vacuum` values. */
const AUTO_VACUUM_NONE = 0;
const AUTO_VACUUM_FULL = 1;

/** Pages per step: start small, never below VACUUM_MIN_CHUNK_PAGES while others write, at most
 * VACUUM_MAX_CHUNK_PAGES (16 MiB of 4 KiB pages) when nobody does. */
const VACUUM_START_CHUNK_PAGES = 256;
const VACUUM_MIN_CHUNK_PAGES = 32;
const VACUUM_MAX_CHUNK_PAGES = 4096;

interface Space {
  autoVacuum: number;
  freePages: number;
  pageCount: number;
  pageSize: number;
}

function* pragmaNumber(name: string): Op<number> {
  return Number(Object.values((yield* get(`PRAGMA ${name}`)) ?? {})[0] ?? 0);
}

function* spaceOp(): Op<Space> {
  return {
    autoVacuum: yield* pragmaNumber("auto_vacuum"),
    freePages: yield* pragmaNumber("freelist_count"),
    pageCount: yield* pragmaNumber("page_count"),
    pageSize: yield* pragmaNumber("page_size"),
  };
}

/** Free up to `pages` pages; returns the free list left. The pragma frees one page per step of
 * its statement: `exec`, not a prepared statement's `run()` (better-sqlite3 and node:sqlite step
 * a statement once) — and where even `exec` steps it once (Deno 2.9's node:sqlite: one page per
 * call, so a vacuum next to a writer freed nothing in 90 s of steps) it is sent again for what is
 * left until the step's pages are free. Inside the step's write transaction nobody else frees or
 * takes pages, so a call that frees nothing means the free list is empty. */
function* incrementalStepTx(pages: number): Op<number> {
  const want = Math.max(1, Math.floor(pages));
  const start = yield* pragmaNumber("freelist_count");
  let free = start;
  while (free > 0 && start - free < want) {
    yield* exec(`PRAGMA incremental_vacuum(${want - (start - free)})`);
    const left = yield* pragmaNumber("freelist_count");
    if (left >= free) break;
    free = left;
  }
  return free;
}

/** A step: the free list it left, and how its transaction went. */
type FreedStep = { free: number } & StepTiming;

function* timedIncrementalStep(pages: number, memory: StepMemory): Op<FreedStep> {
  const { outcome, timing } = yield* timedWrite(() => incrementalStepTx(pages), memory);
  return { free: outcome, ...timing };
}

/** A full VACUUM that leaves the store incremental. VACUUM cannot run inside a transaction: it is
 * sent on its own, with patience (the `read` effect: retried whole on BUSY, no BEGIN). */
function* fullVacuumOp(): Op<void> {
  try {
    yield* exec("VACUUM");
  } catch (error) {
    // VACUUM works on an attached scratch database. A binding built to allow none (Deno's
    // node:sqlite) says only this, in SQLite's words; nothing was changed.
    if (hasResultCode(error, "ERROR") && /too many attached databases/i.test(error.message)) {
      throw new DriverUnavailableError(
        "this SQLite binding cannot run a full VACUUM (it allows no attached databases, which VACUUM needs); nothing was changed. Run the full vacuum once with another driver or runtime (better-sqlite3 or node:sqlite on Node, bun:sqlite, @db/sqlite on Deno); later vacuums are incremental and work here",
        { cause: error },
      );
    }
    throw error;
  }
}

function* checkpointOp(): Op<void> {
  try {
    // In WAL mode the file shrinks when the checkpoint copies the truncation back.
    yield* local({ name: "checkpoint" });
  } catch {
    // The space is freed inside the store either way; the next checkpoint shrinks the file.
  }
}

/**
 * `store.vacuum()` for either store (see the module comment). The sync store runs it with
 * `runSyncYielding`, so it returns a promise there too and the event loop runs between steps.
 */
export function* vacuum(options?: VacuumOptions | null): Op<VacuumResult> {
  const o = valid.options(options, "vacuum", ["onProgress", "signal", "full"]);
  const onProgress = valid.callbackOption<(progress: VacuumProgress) => void>(
    o.onProgress,
    "vacuum.onProgress",
  );
  const signal = valid.signalOption(o.signal, "vacuum.signal");
  const full = valid.flagOption(o.full, "vacuum.full") === true;
  yield* guard("writable", "vacuum");
  signal?.throwIfAborted();
  const started = yield* now();
  // Also what makes a full VACUUM leave the file incremental; undefined: no local file. The
  // pragma writes the file's header, so it waits for other writers with the store's patience
  // and fails as STORE_BUSY past it (a bare call met a writer's lock as a raw SQLITE_BUSY).
  const onFile = yield* read(() => local({ name: "incrementalVacuum" }));
  const before = yield* read(spaceOp);
  const size = (s: Space) => s.pageCount * s.pageSize;
  function* result(method: VacuumResult["method"], after: Space, note?: string): Op<VacuumResult> {
    return {
      method,
      bytesBefore: size(before),
      bytesAfter: size(after),
      reclaimableBytes: after.freePages * after.pageSize,
      ...(note ? { note } : {}),
      durationMs: (yield* now()) - started,
    };
  }

  if (!onFile) {
    return yield* result(
      "none",
      before,
      "the engine owns the database file (a server): vacuum it with the engine's own tools",
    );
  }
  if (full) {
    signal?.throwIfAborted();
    yield* read(fullVacuumOp);
    yield* checkpointOp();
    return yield* result("full", yield* read(spaceOp));
  }
  if (before.autoVacuum === AUTO_VACUUM_NONE) {
    return yield* result(
      "none",
      before,
      "this store's file was created without incremental vacuum (by an older sessiondb, or by a server that created it): only a full vacuum ({ full: true }) compacts it, rewriting the whole file while writers wait, and it makes later vacuums incremental",
    );
  }
  if (before.autoVacuum === AUTO_VACUUM_FULL) {
    return yield* result(
      "none",
      before,
      "the store is in auto_vacuum=FULL mode: SQLite gives space back at every commit",
    );
  }
  if (before.freePages > 0) {
    const tally = { total: before.freePages, freed: 0 };
    const memory: StepMemory = {};
    yield* paced<FreedStep>({
      step: (chunk) => timedIncrementalStep(chunk, memory),
      after: (step) => reportFreed(step, tally, onProgress),
      startChunk: VACUUM_START_CHUNK_PAGES,
      minChunk: VACUUM_MIN_CHUNK_PAGES,
      maxChunk: VACUUM_MAX_CHUNK_PAGES,
      // A writer waiting for the lock does not show until it gets it: without a real gap after
      // every step, a vacuum whose steps grow while it waits keeps it out to the end (bench, Deno
      // at 100k: 3 appends in the 0.1 s vacuum, one of 82 ms). Alone, steps grow to
      // VACUUM_MAX_CHUNK_PAGES, so the floor costs a few steps' pauses.
      minPauseMs: PACE_MIN_PAUSE_MS,
      signal,
    });
    yield* checkpointOp();
  } else {
    onProgress?.({ freedPages: 0, totalPages: 0, done: true });
  }
  return yield* result("incremental", yield* read(spaceOp));
}

/** Progress after a step; true while pages remain on the free list. */
// biome-ignore lint/correctness/useYield: an operation that needs no statement
function* reportFreed(
  step: FreedStep,
  tally: { total: number; freed: number },
  onProgress: ((progress: VacuumProgress) => void) | undefined,
): Op<boolean> {
  // Others free and reuse pages meanwhile: progress never goes back, and the total grows to what
  // has been freed plus what is left.
  tally.freed = Math.max(tally.freed, tally.total - step.free);
  tally.total = Math.max(tally.total, tally.freed + step.free);
  onProgress?.({ freedPages: tally.freed, totalPages: tally.total, done: step.free === 0 });
  return step.free > 0;
}
