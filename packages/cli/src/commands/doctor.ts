import * as fs from "node:fs";
import { type FtsStatus, isWalResetVulnerable, readAdmissionHolder } from "@sessiondb/core";
import { nodeFsHost } from "@sessiondb/core/host";
import { defineCommand } from "../command.js";
import { classify, describe, EXIT, StoreMissingError } from "../exit.js";
import { bold, green, print, printJson, red, yellow } from "../format.js";
import { describeFts } from "../fts-state.js";
import { type StoreLocation, storeLocation } from "../open.js";
import { denial, writeAccess } from "../permissions.js";
import { REPAIR_HINT, shortened } from "../problems.js";
import { detectRuntime } from "../runtime.js";
import { type CliStore, driverOf } from "../server.js";
import { problemText } from "../wording.js";
import { integrity, openForCheck } from "./check.js";

/** ok and note are healthy; warn makes doctor exit 9; fail exits 5 (corruption) or 9. */
export type Status = "ok" | "note" | "warn" | "fail";

export interface Finding {
  check: string;
  status: Status;
  detail: string;
}

export function walVerdict(version: string | undefined, journalMode: string | undefined): Finding {
  if (!version)
    return { check: "wal-reset", status: "note", detail: "SQLite version unknown (the store did not open)" };
  if (!isWalResetVulnerable(version)) {
    return { check: "wal-reset", status: "ok", detail: `SQLite ${version} does not have the WAL-reset bug` };
  }
  const fixed = "fixed in 3.51.3, 3.50.7 and 3.44.6";
  if (journalMode === "wal") {
    return {
      check: "wal-reset",
      status: "fail",
      detail: `SQLite ${version} has the WAL-reset bug (${fixed}) and this store is in WAL mode: this runtime may read it but refuses to write it; use a runtime with a fixed SQLite`,
    };
  }
  return {
    check: "wal-reset",
    status: "note",
    detail: `SQLite ${version} has the WAL-reset bug (${fixed}); this store stays in ${journalMode ?? "DELETE"} mode, which is safe`,
  };
}

function permissions(path: string): Finding[] {
  const out: Finding[] = [];
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let mode: number;
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    const octal = mode.toString(8).padStart(3, "0");
    const name = file.slice(path.length) || "db";
    if ((mode & 0o077) !== 0) {
      out.push({
        check: `permissions ${name}`,
        status: "warn",
        detail: `${file} is mode ${octal}: transcripts are readable by other users; run chmod 600 "${file}"`,
      });
    } else {
      out.push({ check: `permissions ${name}`, status: "ok", detail: `${file} is mode ${octal}` });
    }
  }
  // Asked after the store is closed: the probe opens and closes the file (see writeAccess).
  const access = writeAccess(path);
  if (access === "read-only") {
    out.push({
      check: "writable",
      status: "warn",
      detail: `${path} is not writable by this user: reads work, writes fail`,
    });
  } else if (access === "not-allowed") {
    out.push({
      check: "writable",
      status: "note",
      detail: `not checked: Deno was not given --allow-write for ${path}`,
    });
  }
  return out;
}

export function lockHolder(path: string): Finding {
  const holder = readAdmissionHolder(path, nodeFsHost);
  if (!holder)
    return { check: "admission lock", status: "ok", detail: "no FTS rebuild is recorded as running" };
  const sameHost = !holder.host || holder.host === nodeFsHost.hostname();
  let alive: boolean | undefined;
  if (sameHost) {
    try {
      process.kill(holder.pid, 0);
      alive = true;
    } catch (error) {
      // Deno without --allow-run may not ask: then nobody knows, and the report says so.
      alive = denial(error) ? undefined : (error as { code?: unknown }).code === "EPERM";
    }
  }
  const who = `pid ${holder.pid} (${holder.runtime}, ${holder.driver}${holder.host ? `, host ${holder.host}` : ""}) since ${holder.acquiredAt}`;
  if (sameHost && alive === undefined) {
    return {
      check: "admission lock",
      status: "note",
      detail: `last taken by ${who}; whether it still runs is unknown: Deno was not given --allow-run to ask`,
    };
  }
  if (alive === false) {
    return {
      check: "admission lock",
      status: "note",
      detail: `last taken by ${who}, which is no longer running: the lock is free (the kernel released it)`,
    };
  }
  return {
    check: "admission lock",
    status: "note",
    detail: `held by ${who}${alive ? ", running" : ""}: an FTS rebuild is in progress`,
  };
}

/**
 * On a libSQL server the journal policy does not apply: the server process owns its files and
 * chooses their journal. Its SQLite version is reported; the WAL-reset bug needs a second process
 * writing the same files, which a server does not share.
 */
export function serverFindings(sqliteVersion: string | undefined, journalMode: string): Finding[] {
  const vulnerable = sqliteVersion !== undefined && isWalResetVulnerable(sqliteVersion);
  return [
    {
      check: "journal mode",
      status: "note",
      detail: `${journalMode}, chosen by the server: the journal policy does not apply (the server owns its files)`,
    },
    {
      check: "wal-reset",
      status: vulnerable ? "note" : "ok",
      detail: vulnerable
        ? `the server's SQLite ${sqliteVersion} has the WAL-reset bug, which needs two processes writing one file; only the server process touches its files`
        : `the server's SQLite ${sqliteVersion ?? "(version unknown)"} does not have the WAL-reset bug`,
    },
  ];
}

/** The journal mode: wal or delete are what the journal policy chooses; anything else is a warning. */
export function journalFinding(journalMode: string): Finding {
  return {
    check: "journal mode",
    status: ["wal", "delete"].includes(journalMode) ? "ok" : "warn",
    detail: journalMode,
  };
}

/** The FTS state; `problems` are FTS integrity problems found by a check (none when not run). */
export function ftsFinding(fts: FtsStatus, problems: string[] = []): Finding {
  const status: Status = problems.length ? "fail" : fts.state === "ready" ? "ok" : "warn";
  return { check: "fts", status, detail: [describeFts(fts), ...problems].join("; ") };
}

async function inspectOpen(
  store: CliStore,
  where: StoreLocation,
  writable: boolean,
  findings: Finding[],
): Promise<void> {
  if (where.kind === "server") findings.push(...serverFindings(store.sqliteVersion, store.journalMode));
  else {
    findings.push(journalFinding(store.journalMode));
    findings.push(walVerdict(store.sqliteVersion, store.journalMode));
  }
  const report = await integrity(store);
  const damage = report.corrupt.filter((p) => p.kind === "database").map(problemText);
  findings.push({
    check: "integrity_check",
    status: damage.length === 0 ? "ok" : "fail",
    // One line per problem, as integrity_check lists them (a person sees the first few).
    detail: damage.length === 0 ? "ok" : damage.join("\n"),
  });
  const fts = await store.ftsStatus();
  const ftsProblems = report.corrupt.filter((p) => p.kind === "fts-index").map(problemText);
  findings.push(ftsFinding(fts, ftsProblems));
  if (report.skipped.length) {
    findings.push({
      check: "fts integrity",
      status: "note",
      detail: "FTS5 integrity-check skipped: it needs write access to the store file",
    });
  } else if (!ftsProblems.length && fts.state !== "unavailable") {
    findings.push({
      check: "fts integrity",
      status: "ok",
      detail: `FTS5 integrity-check passed${writable ? "" : " (read-only)"}`,
    });
  }
}

export const doctor = defineCommand({
  name: "doctor",
  usage: "doctor [--json]",
  help: [
    "Checks, each ok / note / warn / fail:",
    "  sqlite          runtime, driver and SQLite version",
    "  wal-reset       whether this SQLite has the WAL-reset bug, and whether that matters here",
    "  journal mode    wal or delete",
    "  integrity_check PRAGMA integrity_check",
    "  fts             index state (ready, backfilling and how far, stale, unavailable) and",
    "                  FTS5 integrity-check",
    "  admission lock  the recorded FTS-rebuild lock holder, and whether it is still running",
    "  permissions     db, -wal, -shm should be 0600; the store should be writable",
    "",
    "Never creates or upgrades a store. Exit 0 only when everything is ok or note; 5 when the file",
    "is corrupt; 9 for any other warn/fail. A store that cannot be opened exits as any command",
    "would: 5 corrupt and 6 unusable after the report says why; 3 no store (a missing or empty",
    "file) and 4 busy with only the error line every command gives (there is no store to report on).",
    "",
    "On a libSQL server (--db URL) the server owns its files: journal mode and the WAL-reset bug",
    "are reported as notes (the journal policy does not apply), and there are no file permissions",
    "or lock files to check; the integrity and FTS checks run through the server.",
  ].join("\n"),
  options: {},
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const findings: Finding[] = [];
    const where = storeLocation(values);
    const path = where.kind === "file" ? where.path : where.shown;
    let version: string | undefined;
    if (where.kind === "file") {
      const rt = await runtime();
      // Nothing to diagnose: the usual "no store" error and exit code.
      if (!fs.existsSync(path)) throw new StoreMissingError(path);
      version = rt.adapter.sqliteVersion(rt.driver);
      findings.push({
        check: "sqlite",
        status: "ok",
        detail: `${rt.name} ${rt.version}, ${rt.driver.name}, SQLite ${version ?? "unknown"}`,
      });
    }
    let openExit: number | undefined;
    let openCode: string | undefined;
    try {
      const { store, writable } = await openForCheck(runtime, values);
      try {
        if (where.kind === "server") {
          const rt = detectRuntime();
          version = store.sqliteVersion;
          findings.push({
            check: "sqlite",
            status: "ok",
            detail: `libSQL server, SQLite ${version ?? "unknown"}; client ${rt.name} ${rt.version}, ${driverOf(store)}`,
          });
        }
        await inspectOpen(store, where, writable, findings);
      } finally {
        await store.close();
      }
    } catch (error) {
      const { exitCode, code } = classify(error);
      // Busy, an unexpected failure, no way to open it at all (no SQLite binding, no server
      // support), or no store there (an empty file): nothing this report could say about the
      // store, and the error every other command gives.
      if (
        exitCode === EXIT.BUSY ||
        exitCode === EXIT.FAILURE ||
        exitCode === EXIT.MISSING ||
        code === "DRIVER_UNAVAILABLE"
      )
        throw error;
      openExit = exitCode;
      openCode = code;
      findings.push({
        check: "open",
        status: "fail",
        // describe: one line, and without the server's token or the URL's credentials.
        detail: `${code}: ${describe(error)}`,
      });
      if (where.kind === "file") findings.push(walVerdict(version, undefined));
    }
    if (where.kind === "file") {
      findings.push(lockHolder(path));
      findings.push(...permissions(path));
    }

    const corrupt =
      openExit === EXIT.CORRUPT ||
      findings.some((f) => f.status === "fail" && (f.check === "integrity_check" || f.check === "fts"));
    const healthy = findings.every((f) => f.status === "ok" || f.status === "note");
    // A store no command can open exits as `check` and every other command would for it (5, 6):
    // 9 is for what doctor finds in a store that opened.
    const exit = openExit ?? (corrupt ? EXIT.CORRUPT : healthy ? EXIT.OK : EXIT.UNHEALTHY);
    if (values.json) {
      printJson({ path, healthy, findings });
      return exit;
    }
    const mark: Record<Status, string> = {
      ok: green("ok  "),
      note: "note",
      warn: yellow("warn"),
      fail: red("FAIL"),
    };
    const width = Math.max(...findings.map((f) => f.check.length));
    // A detail of several lines (integrity problems) continues under its first line, shortened;
    // the marks are four columns wide.
    const under = " ".repeat(4 + 2 + width + 2);
    print(bold(`sessiondb doctor: ${path}`));
    for (const f of findings) {
      const [first, ...rest] = shortened(f.detail.split("\n"));
      print(
        [`${mark[f.status]}  ${f.check.padEnd(width)}  ${first}`, ...rest.map((l) => under + l)].join("\n"),
      );
    }
    print(healthy ? green("healthy") : corrupt ? red("corrupt") : yellow("unhealthy"));
    // What to run for damage SQLite found; a file it cannot read as a database at all gets none.
    if (corrupt && (openCode === undefined || openCode === "STORE_CORRUPT")) print(REPAIR_HINT);
    return exit;
  },
});
