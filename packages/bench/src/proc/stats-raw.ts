/**
 * `sessiondb stats`, reference side: what a hand-written script must do to print what the
 * command prints, through the raw binding and nothing else. It opens the file read-only, reads
 * the SQLite version and the journal mode, the sessions' running totals (one scan of the
 * sessions table), the count by role (the walk of idx_messages_role `store.stats()` makes), the
 * full-text index's markers in state_meta and which of its tables and triggers exist, stats the
 * three files, and prints the same rows. No sessiondb code is loaded.
 * Usage: <runtime> dist/proc/stats-raw.js <target> <db>
 * Compare with: <runtime> packages/cli/dist/bin.js stats --db <db>
 */
import { scriptArgs } from "./script-args.js";

interface Db {
  prepare(sql: string): {
    get(...p: unknown[]): Record<string, unknown>;
    all(...p: unknown[]): Record<string, unknown>[];
  };
  exec(sql: string): void;
  close(): void;
}

const [target, path] = scriptArgs() as [string, string];
let db: Db;
let driver: string;
// The binding loaded as open-raw.js loads it (node:module only where better-sqlite3 needs it).
if (target === "node-better-sqlite3") {
  const { createRequire } = await import("node:module");
  const Database = createRequire(import.meta.url)("better-sqlite3");
  db = new Database(path, { readonly: true, fileMustExist: true });
  driver = "better-sqlite3";
} else if (target === "bun-sqlite") {
  const specifier = "bun:sqlite";
  const { Database } = await import(specifier);
  db = new Database(path, { readonly: true });
  driver = "bun:sqlite";
} else {
  const specifier = "node:sqlite";
  const { DatabaseSync } = await import(specifier);
  db = new DatabaseSync(path, { readOnly: true });
  driver = "node:sqlite";
}
const { statSync } = await import("node:fs");

db.exec("PRAGMA busy_timeout = 100");
const version = String(db.prepare("SELECT sqlite_version() AS v").get().v);
const journal = String(db.prepare("PRAGMA journal_mode").get().journal_mode);
// One read transaction, so the counts agree with each other as the command's do.
db.exec("BEGIN");
const s = db
  .prepare(`SELECT count(*) AS total, coalesce(sum(archived != 0), 0) AS archived,
  coalesce(sum(tool_call_count), 0) AS tool_calls, coalesce(sum(input_tokens), 0) AS input,
  coalesce(sum(output_tokens), 0) AS output, coalesce(sum(estimated_cost_usd), 0) AS cost FROM sessions`)
  .get();
const byRole = db
  .prepare("SELECT role, count(*) AS n FROM messages WHERE role > '' GROUP BY role ORDER BY role")
  .all();
const meta = db
  .prepare(
    "SELECT key, value FROM state_meta WHERE key IN ('fts_stale', 'fts_backfill_high_water', 'fts_backfill_progress')",
  )
  .all();
// The index's tables, views and triggers with their SQL (the command compares the views' and
// triggers' SQL with its own build's).
const objects = db
  .prepare(
    "SELECT name, sql FROM sqlite_master WHERE name IN ('messages_fts', 'messages_fts_trigram', 'messages_fts_src', 'messages_fts_trigram_src', 'messages_fts_ai', 'messages_fts_ad', 'messages_fts_au', 'messages_fts_trigram_ai', 'messages_fts_trigram_ad', 'messages_fts_trigram_au')",
  )
  .all()
  .map((r) => String(r.name));
db.exec("COMMIT");
const size = (p: string) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};
// While the file is open, as the command measures them.
const [db0, wal, shm] = [size(path), size(`${path}-wal`), size(`${path}-shm`)];
db.close();
// Digits grouped by hand: toLocaleString would load ICU's number formats (~30 ms on Node 20),
// which the command does not pay either.
const n = (v: unknown) => String(v).replace(/\B(?=(\d{3})+$)/g, ",");
const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
const rows: Array<[string, string]> = [
  ["store", path],
  ["runtime", `${driver}, SQLite ${version}`],
  ["size", `${mib(db0 + wal + shm)} (db ${mib(db0)}, wal ${mib(wal)}, shm ${mib(shm)})`],
  ["journal", journal],
  ["sessions", `${n(s.total)} (${n(s.archived)} archived)`],
  ["messages", n(byRole.reduce((sum, r) => sum + Number(r.n), 0))],
  ...byRole.map((r): [string, string] => [`  ${String(r.role)}`, n(r.n)]),
  ["tool calls", n(s.tool_calls)],
  ["tokens", `${n(s.input)} in, ${n(s.output)} out`],
  ["cost", `$${Number(s.cost).toFixed(2)}`],
  [
    "fts",
    !objects.includes("messages_fts")
      ? "unavailable"
      : objects.length === 10 && meta.length === 0
        ? "ready"
        : `not ready (${meta.map((r) => r.key).join(", ")})`,
  ],
];
const width = Math.max(...rows.map(([label]) => label.length));
console.log(rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join("\n"));
