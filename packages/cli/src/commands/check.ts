import type { IntegrityProblem, RepairReport } from "@sessiondb/core";
import { defineCommand } from "../command.js";
import { classify, describe, EXIT, ExitError } from "../exit.js";
import { green, plural, print, printJson, red } from "../format.js";
import { type GlobalOptions, type Opened, openFor, storeLocation } from "../open.js";
import { type WriteAccess, writeAccess } from "../permissions.js";
import { problemLines, REPAIR_HINT } from "../problems.js";
import type { Runtime } from "../runtime.js";
import type { CliStore } from "../server.js";
import { cliProse, problemText } from "../wording.js";

/** Library errors after which a read-only connection still serves a check. */
const FALL_BACK_TO_READ_ONLY = new Set(["UNSAFE_SQLITE", "STORE_READONLY", "SCHEMA_TOO_NEW"]);

/**
 * Open for an integrity check. First read-only (never creates, never migrates: an outdated
 * schema fails here with exit 6). FTS5's 'integrity-check' is an INSERT command, which SQLite
 * refuses on a read-only connection, so when this process may write the file the check reopens
 * it writable — without the open-time FTS repair, which would hide what the check is looking for.
 * On a server there is no file to ask: the server says what this client may write.
 */
export async function openForCheck(
  runtime: () => Promise<Runtime>,
  options: GlobalOptions,
): Promise<Opened & { writable: boolean; access: WriteAccess }> {
  const where = storeLocation(options);
  // Asked before any connection is open: the probe opens and closes the file (see writeAccess).
  const access = where.kind === "file" ? writeAccess(where.path) : "writable";
  const probe = await openFor(runtime, options, "read");
  // An index an earlier version made: the writable open below would upgrade it (and leave it to
  // be rebuilt), which a check never does. Outdated, as a missing column is.
  const status = await probe.store.ftsStatus();
  if (status.state === "stale" && status.madeBy === "earlier") {
    await probe.store.close();
    throw new ExitError(
      EXIT.UNUSABLE,
      "The store's full-text index was built by an earlier version of sessiondb. Open the store writable once (any writing command, such as sessiondb fts rebuild) to upgrade it in place; nothing was changed.",
      "SCHEMA_OUTDATED",
    );
  }
  if (access !== "writable") return { ...probe, writable: false, access };
  await probe.store.close();
  try {
    return {
      ...(await openFor(runtime, options, "write", { repairFtsOnOpen: false })),
      writable: true,
      access,
    };
  } catch (error) {
    if (!FALL_BACK_TO_READ_ONLY.has(String((error as { code?: unknown }).code))) throw error;
    return { ...(await openFor(runtime, options, "read")), writable: false, access: "read-only" };
  }
}

/** Why a check that needs a writable connection was skipped, for the report. */
export function skippedBecause(access: WriteAccess): string {
  return access === "not-allowed"
    ? "Deno was not given --allow-write for the store"
    : "the file is read-only for this user";
}

/** The report, split into corruption, a detached index, and checks a read-only connection cannot
 * run (FTS5's integrity-check is a write; core then compares index and source row counts only). */
export async function integrity(store: CliStore): Promise<{
  ok: boolean;
  /** Each problem's message, corruption first: what `check` prints and its --json lists. */
  problems: string[];
  corrupt: IntegrityProblem[];
  stale: IntegrityProblem[];
  skipped: string[];
}> {
  const report = await store.checkIntegrity();
  const stale = report.problems.filter((p) => p.kind === "fts-detached");
  const corrupt = report.problems.filter((p) => p.kind !== "fts-detached");
  return {
    ok: report.ok,
    problems: [...corrupt, ...stale].map(problemText),
    corrupt,
    stale,
    skipped: store.readOnly ? ["FTS5 integrity-check (it needs a writable connection)"] : [],
  };
}

export const check = defineCommand({
  name: "check",
  usage: "check [--json]",
  help: [
    "Runs SQLite's PRAGMA integrity_check, FTS5 'integrity-check' on both indexes, and checks that",
    "indexed rows = source rows. Never creates or upgrades a store (an outdated one exits 6).",
    "",
    "Exit 0 when sound, 5 when anything is corrupt, 9 when the only problem is a detached (stale)",
    "FTS index (search still answers, by LIKE; `sessiondb fts rebuild` restores it).",
    "",
    "A store too damaged to open is diagnosed on a scratch copy (as `repair --check-only`, changing",
    "nothing): the report says what a repair would keep (--json: repair).",
  ].join("\n"),
  options: {},
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    let opened: Awaited<ReturnType<typeof openForCheck>>;
    try {
      opened = await openForCheck(runtime, values);
    } catch (error) {
      const where = storeLocation(values);
      if (where.kind !== "file" || classify(error).code !== "STORE_CORRUPT") throw error;
      return await checkUnopenable(runtime, where.path, values.json === true, error);
    }
    const { store, shown, writable, access } = opened;
    try {
      const report = await integrity(store);
      const exit =
        report.corrupt.length > 0 ? EXIT.CORRUPT : report.stale.length > 0 ? EXIT.UNHEALTHY : EXIT.OK;
      if (values.json) {
        printJson({
          path: shown,
          ok: report.ok,
          problems: report.problems,
          skipped: report.skipped,
          writable,
        });
        return exit;
      }
      if (report.ok)
        print(
          `${green("ok")}  ${shown}: integrity_check, foreign_key_check, FTS5 integrity-check and index row counts are sound`,
        );
      else {
        print(`${red("problems")}  ${shown}:`);
        print(problemLines(report.problems, "  ").join("\n"));
      }
      for (const s of report.skipped) print(`  (skipped: ${skippedBecause(access)}) ${s}`);
      if (exit === EXIT.CORRUPT) print(REPAIR_HINT);
      return exit;
    } finally {
      await store.close();
    }
  },
});

/**
 * A store too damaged to open (its schema page unreadable, the file cut short) still gets a
 * report: the repair's diagnosis, run on a scratch copy that changes nothing (`repair
 * --check-only`), and what a repair would keep. When the diagnosis itself cannot run (no room
 * for the copy, say), the failed open is the report. Exit 5.
 */
async function checkUnopenable(
  runtime: () => Promise<Runtime>,
  path: string,
  json: boolean,
  openError: unknown,
): Promise<number> {
  const rt = await runtime();
  let report: RepairReport;
  try {
    report = await rt.adapter.repairStore(path, { driver: rt.driver, checkOnly: true });
  } catch (error) {
    // Another process holding the store is worth saying; anything else hides the corruption.
    if (classify(error).code === "STORE_IN_USE") throw error;
    throw openError;
  }
  // The diagnosis names the failed open itself; without one, the open's failure is the report.
  const problems =
    report.problemsBefore.length > 0
      ? report.problemsBefore.map(cliProse)
      : [`the store does not open: ${describe(openError)}`];
  const kept =
    report.strategy === undefined || report.countsAfter === undefined
      ? undefined
      : {
          strategy: report.strategy,
          sessions: report.countsAfter.sessions ?? 0,
          messages: report.countsAfter.messages ?? 0,
        };
  if (json) {
    printJson({ path, ok: false, problems, skipped: [], writable: false, repair: kept ?? null });
    return EXIT.CORRUPT;
  }
  print(`${red("problems")}  ${path}:`);
  print(problemLines(problems, "  ").join("\n"));
  if (kept === undefined) {
    print(
      '  no repair strategy made a copy of it sound, so "sessiondb repair" cannot bring it back; restore the store from a backup',
    );
  } else {
    print(
      `  a repair would keep ${plural(kept.sessions, "session")} and ${plural(kept.messages, "message")} (${kept.strategy}, tried on a copy; nothing was changed)`,
    );
    print(REPAIR_HINT);
  }
  return EXIT.CORRUPT;
}
