/**
 * One benchmark target = one runtime with one SQLite binding. Inside the target's own process,
 * `loadEngine` gives the suites two ways into the same file: the sessiondb Store (through the
 * runtime's adapter package) and the raw binding (the in-run reference every ratio divides by).
 * Adapters and bindings are imported dynamically, so a process only ever loads its own SQLite.
 */
import { createRequire } from "node:module";
import process from "node:process";
import type { Store, StoreOptions } from "@sessiondb/core";

/** Target ids, in table column order. */
export const TARGETS = [
  "node-better-sqlite3",
  "node-sqlite",
  "bun-sqlite",
  "deno-node-sqlite",
  "node-libsql-server",
] as const;
export type TargetId = (typeof TARGETS)[number];

/** Column headings for the Markdown table. */
export const TARGET_LABELS: Record<TargetId, string> = {
  "node-better-sqlite3": "Node 20 + better-sqlite3",
  "node-sqlite": "Node 24 + node:sqlite",
  "bun-sqlite": "Bun + bun:sqlite",
  "deno-node-sqlite": "Deno + node:sqlite",
  "node-libsql-server": "Node + libSQL server (sqld)",
};

/** Targets whose store is on a server: their own runner (server-runner.ts), not loadEngine. */
export const SERVER_TARGETS: readonly TargetId[] = ["node-libsql-server"];

/** A raw prepared statement (positional parameters). */
export interface RawStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
  /** bun:sqlite only. Its `close()` closes the connection for real only once every statement is
   * finalized, and leaves it to garbage collection otherwise; the other bindings finalize their
   * statements in `close()` themselves. */
  finalize?(): void;
}

/** A raw connection: the binding with nothing of ours in between. */
export interface RawDb {
  exec(sql: string): void;
  prepare(sql: string): RawStatement;
  close(): void;
}

/** What the suites use inside a target process. */
export interface Engine {
  target: TargetId;
  /** e.g. "node 24.21.0". */
  runtime: string;
  /** Open the store through the runtime's adapter. */
  openStore(path: string, options?: StoreOptions): Store;
  /** Open the file with the raw binding. */
  openRaw(path: string): RawDb;
  /** SQLite version of the raw binding. */
  sqliteVersion: string;
}

/** Thrown when a target cannot run here; the message is the printed reason. */
export class SkipTarget extends Error {}

type G = { Bun?: { version: string }; Deno?: { version: { deno: string } } };

/** The runtime this process is: "node", "bun" or "deno", with its version. */
export function currentRuntime(): { name: "node" | "bun" | "deno"; version: string } {
  const g = globalThis as G;
  if (g.Bun) return { name: "bun", version: g.Bun.version };
  if (g.Deno) return { name: "deno", version: g.Deno.version.deno };
  return { name: "node", version: process.versions.node };
}

// A variable specifier keeps bundlers from resolving runtime-only modules at build time.
const dynamicImport = (specifier: string): Promise<Record<string, unknown>> => import(specifier);

async function importAdapter(
  name: string,
): Promise<{ openStore: (path: string, options?: object) => Store }> {
  try {
    const mod = await dynamicImport(name);
    if (typeof mod.openStore !== "function") throw new Error("it has no openStore export");
    return mod as { openStore: (path: string, options?: object) => Store };
  } catch (error) {
    throw new SkipTarget(`adapter ${name} is not available (${firstLine(error)})`);
  }
}

const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";

/** Wrap a binding whose statements take positional parameters and whose db has exec/prepare/close. */
function wrap(db: { exec(sql: string): unknown; prepare(sql: string): unknown; close(): unknown }): RawDb {
  return {
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => db.prepare(sql) as RawStatement,
    close: () => void db.close(),
  };
}

/** Load the engine of `target` in this process, or throw SkipTarget saying why not. */
export async function loadEngine(target: TargetId): Promise<Engine> {
  const rt = currentRuntime();
  const runtime = `${rt.name} ${rt.version}`;
  const want = target.startsWith("node-") ? "node" : target.startsWith("bun-") ? "bun" : "deno";
  if (rt.name !== want) throw new SkipTarget(`${target} must run on ${want}, this is ${runtime}`);
  if (SERVER_TARGETS.includes(target)) throw new SkipTarget(`${target} runs in server-runner.js`);
  let openRaw: (path: string) => RawDb;
  let adapter: Awaited<ReturnType<typeof importAdapter>>;
  let storeOptions: object = {};
  if (target === "node-better-sqlite3") {
    let Database: new (path: string, options?: object) => Parameters<typeof wrap>[0];
    try {
      Database = createRequire(import.meta.url)("better-sqlite3");
      new Database(":memory:").close();
    } catch (error) {
      throw new SkipTarget(`better-sqlite3 does not load on ${runtime} (${firstLine(error)})`);
    }
    openRaw = (path) => wrap(new Database(path));
    adapter = await importAdapter("@sessiondb/node");
    storeOptions = { driver: "better-sqlite3" };
  } else if (target === "bun-sqlite") {
    const { Database } = (await dynamicImport("bun:sqlite")) as {
      Database: new (path: string) => Parameters<typeof wrap>[0];
    };
    openRaw = (path) => wrap(new Database(path));
    adapter = await importAdapter("@sessiondb/bun");
  } else {
    let DatabaseSync: new (path: string) => Parameters<typeof wrap>[0];
    try {
      ({ DatabaseSync } = (await dynamicImport("node:sqlite")) as { DatabaseSync: typeof DatabaseSync });
      new DatabaseSync(":memory:").close();
    } catch (error) {
      throw new SkipTarget(`node:sqlite is not available on ${runtime} (${firstLine(error)})`);
    }
    openRaw = (path) => wrap(new DatabaseSync(path));
    adapter = await importAdapter(target === "node-sqlite" ? "@sessiondb/node" : "@sessiondb/deno");
    if (target === "node-sqlite") storeOptions = { driver: "node:sqlite" };
  }
  const probe = openRaw(":memory:");
  const sqliteVersion = String(probe.prepare("SELECT sqlite_version() AS v").get()?.v);
  probe.close();
  return {
    target,
    runtime,
    sqliteVersion,
    openRaw,
    openStore: (path, options) => adapter.openStore(path, { ...storeOptions, ...options }),
  };
}

/** Files that live next to a store (WAL, shared memory, the FTS admission lock and its holder record). */
export const SIDE_FILES = ["", "-wal", "-shm", ".fts-rebuild.lock", ".fts-rebuild.lock.holder.json"];
