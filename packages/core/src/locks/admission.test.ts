import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { tempDir, testDriver } from "../../test/support/driver.js";
import type { Host } from "../host/host.js";
import { nodeFsHost } from "../host/node-fs.js";
import {
  type Admission,
  acquireAdmission,
  admissionLockPath,
  describeAdmissionHolder,
  readAdmissionHolder,
} from "./admission.js";

// In-process tests on real files: two connections in one process exclude each other through
// SQLite's own lock bookkeeping. Cross-process behaviour (kill -9, children) is tested in
// packages/runtime-node/test/locks.admission.test.ts.

let tmp: ReturnType<typeof tempDir>;
let db: string;
const held: Admission[] = [];

function acquire(options: Parameters<typeof acquireAdmission>[2], path = db): Admission {
  const admission = acquireAdmission(testDriver, path, options);
  held.push(admission);
  return admission;
}

beforeEach(() => {
  tmp = tempDir("sessiondb-admission-");
  db = tmp.file("state.db");
});
afterEach(() => {
  for (const admission of held.splice(0)) if (admission.admitted) admission.release();
  tmp.cleanup();
});

describe("acquireAdmission (one process, real lock files)", () => {
  test("lock path sits next to the store", () => {
    expect(admissionLockPath("/x/state.db")).toBe("/x/state.db.fts-rebuild.lock");
  });

  test("admits when free; the lock file is a separate, empty SQLite file", () => {
    const admission = acquire({ timeoutMs: 0 });
    expect(admission.admitted).toBe(true);
    expect(readFileSync(admissionLockPath(db)).length).toBe(0);
  });

  test("a second connection is refused at once with timeoutMs 0: held, BUSY, exactly one probe", () => {
    expect(acquire({ timeoutMs: 0 }).admitted).toBe(true);
    let sleeps = 0;
    const started = Date.now();
    const second = acquire({ timeoutMs: 0, sleep: () => sleeps++ });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(sleeps).toBe(0);
    expect(second.admitted).toBe(false);
    if (second.admitted) return;
    expect(second.reason).toBe("held");
    expect(second.code).toBe("BUSY");
    expect(second.message).toContain("held by another process");
    expect(second.message).toContain(admissionLockPath(db));
  });

  test("release lets the next one in; release is idempotent", () => {
    const first = acquire({ timeoutMs: 0 });
    expect(first.admitted).toBe(true);
    if (first.admitted) {
      first.release();
      first.release();
    }
    expect(acquire({ timeoutMs: 0 }).admitted).toBe(true);
  });

  test("polls every pollMs until the holder releases, never sleeping past the deadline", () => {
    const first = acquire({ timeoutMs: 0 });
    if (!first.admitted) throw new Error("first acquisition failed");
    let clock = 0;
    const sleeps: number[] = [];
    const second = acquire({
      timeoutMs: 10_000,
      pollMs: 250,
      now: () => clock,
      sleep: (ms) => {
        sleeps.push(ms);
        clock += ms;
        if (sleeps.length === 4) first.release();
      },
    });
    expect(second.admitted).toBe(true);
    expect(sleeps).toEqual([250, 250, 250, 250]);
  });

  test("gives up as held after the timeout, the last sleep cut at the deadline", () => {
    expect(acquire({ timeoutMs: 0 }).admitted).toBe(true);
    let clock = 0;
    const sleeps: number[] = [];
    const second = acquire({
      timeoutMs: 1000,
      pollMs: 300,
      now: () => clock,
      sleep: (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
    });
    expect(sleeps).toEqual([300, 300, 300, 100]);
    expect(second.admitted).toBe(false);
    if (second.admitted) return;
    expect(second.reason).toBe("held");
    expect(second.waitedMs).toBe(1000);
    expect(second.message).toContain("after waiting 1.0 s");
  });

  test("waits in real time with the default sleep", () => {
    expect(acquire({ timeoutMs: 0 }).admitted).toBe(true);
    const started = Date.now();
    const second = acquire({ timeoutMs: 300, pollMs: 50 });
    const took = Date.now() - started;
    expect(second.admitted).toBe(false);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2000);
  });

  test("holder record: written on acquire, named when held, marked released on release", () => {
    const first = acquire({ timeoutMs: 0, host: nodeFsHost });
    expect(first.admitted).toBe(true);
    const holder = readAdmissionHolder(db, nodeFsHost);
    expect(holder).toMatchObject({ pid: process.pid, runtime: "node", driver: testDriver.name });
    expect(Number.isNaN(Date.parse(holder?.acquiredAt ?? ""))).toBe(false);
    expect(describeAdmissionHolder(db, nodeFsHost)).toContain(`pid ${process.pid}`);

    const second = acquire({ timeoutMs: 0, host: nodeFsHost });
    expect(second.admitted).toBe(false);
    if (second.admitted) return;
    expect(second.holder?.pid).toBe(process.pid);
    expect(second.message).toContain(`pid ${process.pid}`);

    if (first.admitted) first.release();
    expect(readAdmissionHolder(db, nodeFsHost)).toBeUndefined();
    const record = JSON.parse(readFileSync(`${admissionLockPath(db)}.holder.json`, "utf8"));
    expect(record.releasedAt).toBeTypeOf("string");
  });

  test("a garbled holder record is ignored, not fatal", () => {
    writeFileSync(`${admissionLockPath(db)}.holder.json`, "{ not json");
    expect(readAdmissionHolder(db, nodeFsHost)).toBeUndefined();
    expect(readAdmissionHolder(db, undefined)).toBeUndefined();
  });

  test("failing to write the holder record does not fail the acquisition", () => {
    const failingHost: Host = {
      ...nodeFsHost,
      writeFileAtomic() {
        throw Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" });
      },
    };
    const admission = acquire({ timeoutMs: 0, host: failingHost });
    expect(admission.admitted).toBe(true);
    if (admission.admitted) expect(() => admission.release()).not.toThrow();
  });

  test("holder record path is a directory: still admitted", () => {
    mkdirSync(`${admissionLockPath(db)}.holder.json`);
    const admission = acquire({ timeoutMs: 0, host: nodeFsHost });
    expect(admission.admitted).toBe(true);
    expect(readAdmissionHolder(db, nodeFsHost)).toBeUndefined();
  });
});

describe("environment failures are reported at once, never as contention", () => {
  function expectEnvironment(admission: Admission, code: string, startedAt: number) {
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(admission.admitted).toBe(false);
    if (admission.admitted) return;
    expect(admission.reason).toBe("environment");
    expect(admission.code).toBe(code);
    expect(admission.message).toContain(`SQLITE_${code}`);
    expect(admission.message).not.toMatch(/held by another process/i);
    expect(admission.holder).toBeUndefined();
  }

  test("the lock path is a directory → CANTOPEN, no polling even with a long timeout", () => {
    mkdirSync(admissionLockPath(db));
    let sleeps = 0;
    const started = Date.now();
    const admission = acquire({ timeoutMs: 60_000, sleep: () => sleeps++ });
    expectEnvironment(admission, "CANTOPEN", started);
    expect(sleeps).toBe(0);
  });

  test("the lock path's parent is a regular file (ENOTDIR) → CANTOPEN", () => {
    const notADir = tmp.file("plain-file");
    writeFileSync(notADir, "x");
    const started = Date.now();
    expectEnvironment(acquire({ timeoutMs: 60_000 }, `${notADir}/state.db`), "CANTOPEN", started);
  });

  test("the lock file is not a database → NOTADB (it is never deleted or overwritten)", () => {
    const garbage = "this is not a SQLite database, it must survive untouched. ".repeat(20);
    writeFileSync(admissionLockPath(db), garbage);
    const started = Date.now();
    expectEnvironment(acquire({ timeoutMs: 60_000 }), "NOTADB", started);
    expect(readFileSync(admissionLockPath(db), "utf8")).toBe(garbage);
  });
});

describe("a lock path that is not a lock file of ours is refused before SQLite opens it", () => {
  function expectRefused(admission: Admission, ...named: RegExp[]) {
    expect(admission.admitted).toBe(false);
    if (admission.admitted) return;
    expect(admission.reason).toBe("environment");
    expect(admission.code).toBeUndefined();
    expect(admission.waitedMs).toBe(0);
    expect(admission.message).toContain(admissionLockPath(db));
    for (const pattern of named) expect(admission.message).toMatch(pattern);
  }

  test("the lock file sessiondb makes is 0600", () => {
    expect(acquire({ timeoutMs: 0, host: nodeFsHost }).admitted).toBe(true);
    expect(statSync(admissionLockPath(db)).mode & 0o777).toBe(0o600);
  });

  test("a hard link to the store's -wal", () => {
    writeFileSync(`${db}-wal`, "");
    linkSync(`${db}-wal`, admissionLockPath(db));
    expectRefused(
      acquire({ timeoutMs: 60_000, host: nodeFsHost }),
      /store's own file .*-wal under another name/,
    );
  });

  test("a dangling symlink (SQLite would create its target)", () => {
    const elsewhere = tmp.file("elsewhere");
    symlinkSync(elsewhere, admissionLockPath(db));
    expectRefused(
      acquire({ timeoutMs: 60_000, host: nodeFsHost }),
      /symbolic link to a path that does not exist/,
    );
    expect(() => statSync(elsewhere)).toThrow();
  });

  test("a symlink loop", () => {
    symlinkSync(admissionLockPath(db), admissionLockPath(db));
    expectRefused(acquire({ timeoutMs: 60_000, host: nodeFsHost }), /cannot be examined/);
  });

  test("a FIFO (SQLite's first read of it would block for good)", (ctx) => {
    const made = spawnSync("mkfifo", [admissionLockPath(db)], { encoding: "utf8" });
    if (made.status !== 0) {
      console.log(`skipped: mkfifo is not available here (${made.error?.message ?? made.stderr})`);
      ctx.skip();
    }
    expectRefused(acquire({ timeoutMs: 60_000, host: nodeFsHost }), /not a regular file/);
  });
});

test("an in-memory store needs no lock", () => {
  const admission = acquireAdmission(testDriver, ":memory:", { timeoutMs: 0 });
  expect(admission.admitted).toBe(true);
  if (admission.admitted) admission.release();
});
