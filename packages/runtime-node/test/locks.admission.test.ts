/**
 * The FTS admission lock across real processes: children hold the lock file with `BEGIN
 * EXCLUSIVE` on the raw binding (the same on-disk protocol as core's acquireAdmission), get
 * killed with SIGKILL, and probe a lock this process holds. No mocks: real files, real
 * processes, real signals.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { SqliteDriver } from "../../core/src/driver.js";
import { DriverUnavailableError } from "../../core/src/errors.js";
import { nodeFsHost } from "../../core/src/host/node-fs.js";
import {
  type Admission,
  acquireAdmission,
  admissionLockPath,
  readAdmissionHolder,
} from "../../core/src/locks/admission.js";
import { betterSqlite3Driver } from "../src/better-sqlite3.js";
import { nodeSqliteDriver } from "../src/node-sqlite.js";

const CHILD = fileURLToPath(new URL("./fixtures/admission-lock-child.mjs", import.meta.url));
const REPO_NODE = fileURLToPath(new URL("../../../node_modules/node/bin/node", import.meta.url));

/** The driver this Node can load: better-sqlite3 on Node 20, node:sqlite where the addon's ABI does not match. */
function pickDriver(): SqliteDriver {
  try {
    return betterSqlite3Driver();
  } catch (error) {
    if (!(error instanceof DriverUnavailableError)) throw error;
    return nodeSqliteDriver();
  }
}

const driver = pickDriver();

interface Child {
  process: ChildProcess;
  pid: number;
  /** Resolves with the first stdout line ("ready", "admitted", "busy …", "error …"). */
  firstLine: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

function runChild(args: string[], nodeBinary = process.execPath, binding = driver.name): Child {
  const child = spawn(nodeBinary, [CHILD, binding, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const cut = stdout.indexOf("\n");
      if (cut >= 0) resolve(stdout.slice(0, cut));
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`child exited (${code ?? signal}) before a line; stderr: ${stderr}`)),
    );
  });
  if (child.pid === undefined) throw new Error("spawn failed");
  return { process: child, pid: child.pid, firstLine, exited };
}

async function holdingChild(db: string, holdMs: number, record = true): Promise<Child> {
  const child = runChild([admissionLockPath(db), "hold", String(holdMs), record ? "record" : ""]);
  expect(await child.firstLine).toBe("ready");
  return child;
}

async function probe(db: string, nodeBinary?: string, binding?: string): Promise<string> {
  const child = runChild([admissionLockPath(db), "probe"], nodeBinary, binding);
  const line = await child.firstLine;
  await child.exited;
  return line;
}

let dir: string;
let db: string;
const admissions: Admission[] = [];

function acquire(options: Parameters<typeof acquireAdmission>[2]): Admission {
  const admission = acquireAdmission(driver, db, options);
  admissions.push(admission);
  return admission;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sessiondb-admission-mp-"));
  db = join(dir, "state.db");
});

afterEach(async () => {
  for (const admission of admissions.splice(0)) if (admission.admitted) admission.release();
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe(`admission lock across processes (${driver.name}, Node ${process.versions.node})`, () => {
  test("a child holding the lock: timeoutMs 0 answers 'held' at once and names the holder pid", async () => {
    const child = await holdingChild(db, 0);
    const started = Date.now();
    const admission = acquire({ timeoutMs: 0, host: nodeFsHost });
    const took = Date.now() - started;
    expect(took).toBeLessThan(1000);
    expect(admission.admitted).toBe(false);
    if (admission.admitted) return;
    expect(admission.reason).toBe("held");
    expect(admission.code).toBe("BUSY");
    expect(admission.holder?.pid).toBe(child.pid);
    expect(admission.holder?.driver).toBe(driver.name);
    expect(admission.message).toContain("held by another process");
    expect(admission.message).toContain(`pid ${child.pid}`);
  });

  test("without a holder record the answer is still 'held', just without a pid", async () => {
    await holdingChild(db, 0, false);
    const admission = acquire({ timeoutMs: 0, host: nodeFsHost });
    expect(admission.admitted).toBe(false);
    if (admission.admitted) return;
    expect(admission.reason).toBe("held");
    expect(admission.holder).toBeUndefined();
  });

  test("with a 30 s budget it waits for a holder that exits after ~1.5 s, then is admitted", async () => {
    const child = await holdingChild(db, 1500);
    const started = Date.now();
    const admission = acquire({ timeoutMs: 30_000, host: nodeFsHost });
    const waited = Date.now() - started;
    expect(admission.admitted).toBe(true);
    // It really waited for the child (which held ~1.5 s from "ready"), and not much longer than
    // one poll interval after the child let go.
    expect(waited).toBeGreaterThan(1000);
    expect(waited).toBeLessThan(5000);
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(readAdmissionHolder(db, nodeFsHost)?.pid).toBe(process.pid);
  });

  test("kill -9 of the holder releases the lock at once", async () => {
    const child = await holdingChild(db, 0);
    const before = acquire({ timeoutMs: 0 });
    expect(before.admitted).toBe(false);

    child.process.kill("SIGKILL");
    expect(await child.exited).toEqual({ code: null, signal: "SIGKILL" });
    // The dead holder's record stays behind (diagnostics only) until the next holder replaces it.
    expect(readAdmissionHolder(db, nodeFsHost)?.pid).toBe(child.pid);

    const started = Date.now();
    const after = acquire({ timeoutMs: 0, host: nodeFsHost });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(after.admitted).toBe(true);
    expect(readAdmissionHolder(db, nodeFsHost)?.pid).toBe(process.pid);
  });

  test("a waiter is admitted as soon as the holder is killed mid-wait", async () => {
    const child = await holdingChild(db, 0);
    // This process blocks synchronously while waiting, so the kill comes from another process.
    const killer = spawn("sh", ["-c", `sleep 1; kill -9 ${child.pid}`], { stdio: "ignore" });
    children.push(killer);
    const started = Date.now();
    const admission = acquire({ timeoutMs: 30_000 });
    const waited = Date.now() - started;
    expect(admission.admitted).toBe(true);
    expect(waited).toBeGreaterThan(500);
    expect(waited).toBeLessThan(5000);
    expect((await child.exited).signal).toBe("SIGKILL");
  });

  test("a lock this process holds is seen by a child, and is free for it after release", async () => {
    const admission = acquire({ timeoutMs: 0, host: nodeFsHost });
    expect(admission.admitted).toBe(true);
    // A child spawned while we hold the lock does not inherit it: it is refused like any process.
    expect(await probe(db)).toMatch(/^busy /);
    if (admission.admitted) admission.release();
    expect(await probe(db)).toBe("admitted");
  });

  test("environment failure: the lock path is a directory → 'environment', CANTOPEN, at once", () => {
    mkdirSync(admissionLockPath(db));
    const started = Date.now();
    const admission = acquire({ timeoutMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(admission.admitted).toBe(false);
    if (admission.admitted) return;
    expect(admission.reason).toBe("environment");
    expect(admission.code).toBe("CANTOPEN");
    expect(admission.message).toContain("SQLITE_CANTOPEN");
    expect(admission.message).not.toMatch(/held by another process/i);
  });

  test("environment failure: the lock path's parent is a regular file → 'environment', CANTOPEN, at once", () => {
    const file = join(dir, "not-a-directory");
    writeFileSync(file, "x");
    const started = Date.now();
    const admission = acquireAdmission(driver, join(file, "state.db"), { timeoutMs: 30_000 });
    admissions.push(admission);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(admission.admitted).toBe(false);
    if (admission.admitted) return;
    expect(admission.reason).toBe("environment");
    expect(admission.code).toBe("CANTOPEN");
    expect(admission.message).not.toMatch(/held by another process/i);
  });
});

/**
 * Another Node with the other binding, when this machine has one: Node 24 from the repo's `node`
 * dev dependency runs node:sqlite; a Node whose ABI matches the better-sqlite3 addon runs that.
 * Two different SQLite builds in two processes share one lock protocol.
 */
function otherRuntime(): { node: string; binding: string } | undefined {
  const binding = driver.name === "better-sqlite3" ? "node:sqlite" : "better-sqlite3";
  const candidates = [REPO_NODE, "/usr/bin/node", "/usr/local/bin/node"].filter(
    (bin) => bin !== process.execPath && existsSync(bin),
  );
  const probeDir = mkdtempSync(join(tmpdir(), "sessiondb-admission-probe-"));
  try {
    for (const bin of candidates) {
      const result = spawnSync(bin, [CHILD, binding, join(probeDir, "x.lock"), "probe"], {
        encoding: "utf8",
      });
      if (result.status === 0 && result.stdout.trim() === "admitted") return { node: bin, binding };
    }
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
  return undefined;
}

const other = otherRuntime();

describe.skipIf(!other)(
  `admission lock across bindings (${driver.name} here, ${other?.binding} in the child)`,
  () => {
    test("a holder on the other binding is seen as held; after it exits, this one is admitted", async () => {
      if (!other) return;
      const child = runChild([admissionLockPath(db), "hold", "0", "record"], other.node, other.binding);
      expect(await child.firstLine).toBe("ready");
      const admission = acquire({ timeoutMs: 0, host: nodeFsHost });
      expect(admission.admitted).toBe(false);
      if (!admission.admitted) expect(admission.holder?.driver).toBe(other.binding);
      child.process.kill("SIGKILL");
      await child.exited;
      expect(acquire({ timeoutMs: 0 }).admitted).toBe(true);
    });

    test("a lock held here is seen by the other binding", async () => {
      if (!other) return;
      const admission = acquire({ timeoutMs: 0 });
      expect(admission.admitted).toBe(true);
      expect(await probe(db, other.node, other.binding)).toMatch(/^busy /);
      if (admission.admitted) admission.release();
      expect(await probe(db, other.node, other.binding)).toBe("admitted");
    });
  },
);
