/**
 * What every role needs from its runtime, written once for Node, Bun and Deno: the role's
 * config, the append-only report, the adapter's openStore (and repairStore's options), stop
 * signals, and descriptor counts.
 * Only node:fs / node:process / node:path / node:url are used; all three runtimes provide them.
 */
import { closeSync, existsSync, openSync, readdirSync, readlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

/** "node" | "bun" | "deno". */
export function runtimeName() {
  if (globalThis.Bun) return "bun";
  if (globalThis.Deno) return "deno";
  return "node";
}

/** The role config the harness passes in SESSIONDB_ROLE (JSON). */
export function readConfig() {
  const text = process.env.SESSIONDB_ROLE;
  if (!text) throw new Error("SESSIONDB_ROLE is not set: roles are started by the chamber harness");
  return JSON.parse(text);
}

/**
 * The role's report: one JSON object per line, each line one write(2) on a descriptor opened
 * with O_APPEND, so a kill -9 loses nothing already written and lines never interleave.
 */
export class Report {
  #fd;
  #name;
  constructor(path, name) {
    this.#fd = openSync(path, "a");
    this.#name = name;
  }
  /** Append one event. */
  event(type, fields = {}) {
    const line = `${JSON.stringify({ t: type, at: Date.now(), role: this.#name, pid: process.pid, ...fields })}\n`;
    writeSync(this.#fd, line);
  }
  close() {
    closeSync(this.#fd);
  }
}

/** The error as a report field: class, stable code, whether it is a SessionDbError; the engine's
 * extended code from it or its cause (a libSQL server's `LIBSQL_COMMIT_UNKNOWN`: the outcome of
 * the write is not known). */
export function describeError(error, SessionDbError) {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error), typed: false };
  return {
    name: error.name,
    code: error.code,
    resultCode: error.resultCode,
    extendedCode: error.extendedCode ?? error.cause?.extendedCode,
    typed: SessionDbError ? error instanceof SessionDbError : false,
    message: String(error.message).slice(0, 400),
    stack: String(error.stack ?? "")
      .split("\n")
      .slice(1, 8)
      .map((l) => l.trim())
      .join(" | "),
  };
}

/**
 * Load the runtime's adapter from `cfg.modules` (a node_modules directory: the repository's, or a
 * scratch copy holding a deliberately broken build) and return `open(path, extra)`. With
 * `cfg.url` (the fleet) every role opens that database on a libSQL server through
 * @sessiondb/libsql instead, whatever path it is given; its Store answers with promises, so roles
 * await every call (harmless on the file adapters' synchronous stores).
 */
export async function loadAdapter(cfg) {
  if (cfg.url) return loadServerAdapter(cfg);
  const runtime = runtimeName();
  const pkg = runtime === "node" ? "node" : runtime;
  const url = pathToFileURL(join(cfg.modules, "@sessiondb", pkg, "dist", "index.js")).href;
  const mod = await import(url);
  const base = {};
  if (runtime === "node" && cfg.driver) base.driver = cfg.driver;
  if (cfg.sqliteVersion) base.sqliteVersion = cfg.sqliteVersion;
  if (cfg.patience) base.patience = cfg.patience;
  if (cfg.durability) base.durability = cfg.durability;
  const adapter = {
    mod,
    runtime,
    /** When the latest `open` began (see `openedIn`). */
    openStartedAt: undefined,
    /** Options for the adapter's `repairStore`: the driver `open` uses. */
    repairOptions: base.driver ? { driver: base.driver } : {},
    open(path, extra = {}) {
      adapter.openStartedAt = Date.now();
      return mod.openStore(path, { ...base, ...extra });
    },
  };
  return adapter;
}

async function loadServerAdapter(cfg) {
  const load = (pkg) => import(pathToFileURL(join(cfg.modules, "@sessiondb", pkg, "dist", "index.js")).href);
  const [server, core] = await Promise.all([load("libsql"), load("core")]);
  const mod = { ...server, SessionDbError: server.SessionDbError ?? core.SessionDbError };
  const base = cfg.patience ? { patience: cfg.patience } : {};
  const adapter = {
    mod,
    runtime: runtimeName(),
    openStartedAt: undefined,
    repairOptions: {},
    open(_path, extra = {}) {
      adapter.openStartedAt = Date.now();
      return mod.openStore(cfg.url, { ...base, ...cfg.serverOptions, ...extra });
    },
  };
  return adapter;
}

/**
 * Report fields for the mode a store was opened in, and when that open began: a process that
 * opened while another was still creating the store may truthfully report DELETE in the WAL
 * arm (both switches to WAL met a sibling's lock; the sibling switched afterwards), so the
 * harness needs the start to tell that from a wrong mode.
 */
export function openedIn(adapter, store) {
  return {
    journalMode: store.journalMode,
    durability: store.durability,
    openStartedAt: adapter.openStartedAt,
  };
}

/** Stop requests: SIGTERM or the stop file. `stopping()` is checked between operations. */
export function stopControl(cfg) {
  let term = false;
  process.on("SIGTERM", () => {
    term = true;
  });
  return {
    stopping: () => term || (cfg.stopFile ? existsSync(cfg.stopFile) : false),
    reason: () => (term ? "SIGTERM" : "stop file"),
  };
}

/** Sleep (yields to the event loop, so signal handlers run). */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** This process's descriptors: total, and those open on the store's files. */
export function descriptors(storePath) {
  let total = 0;
  let store = 0;
  try {
    for (const fd of readdirSync("/proc/self/fd")) {
      total++;
      try {
        const target = readlinkSync(`/proc/self/fd/${fd}`);
        if (target === storePath || target.startsWith(`${storePath}-`)) store++;
      } catch {
        // closed between readdir and readlink
      }
    }
  } catch {
    return undefined;
  }
  return { total, store };
}

/** Run a role's main, reporting a crash as an event and a non-zero exit. */
export async function runRole(main) {
  const cfg = readConfig();
  const report = new Report(cfg.report, cfg.name);
  let adapter;
  try {
    adapter = await loadAdapter(cfg);
    await main({ cfg, report, adapter, stop: stopControl(cfg) });
    report.event("exit", { code: 0 });
    endCleanly();
  } catch (error) {
    report.event("crash", {
      error: describeError(error, adapter?.mod.SessionDbError),
      stack: String(error?.stack).slice(0, 2000),
    });
    process.exit(3); // at once: nothing the role left running may act after its crash
  }
}

/**
 * End with code 0 once nothing is left to run; `process.exit` only as a fallback 100 ms later.
 * On Node 24 `process.exit` can hang for ever (a V8 background compile waiting for a garbage
 * collection while exit joins it, nodejs/node#54918); the chamber would then report a role that
 * never exited. A process that ends on its own tears V8 down first. The CLI ends the same way.
 * Only a role that finished uses it: whatever it still has running may finish within the 100 ms.
 */
function endCleanly() {
  process.exitCode = 0;
  setTimeout(() => process.exit(0), 100).unref();
}
