/**
 * Real processes on one store: concurrent appenders lose and duplicate nothing; an appender
 * killed with SIGKILL in a loop leaves an intact store holding every acknowledged append
 * exactly once and every in-flight one at most once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { availableDriverNames } from "./drivers-here.js";

const APPENDER = new URL("./fixtures/appender.mjs", import.meta.url).pathname;
const BUILT = new URL("../dist/index.js", import.meta.url).pathname;

interface LogState {
  acked: string[];
  inFlight: string[];
}

function readLog(path: string): LogState {
  const acked: string[] = [];
  const intents: string[] = [];
  if (!existsSync(path)) return { acked, inFlight: [] };
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.startsWith("intent ")) intents.push(...line.slice(7).split(" "));
    if (line.startsWith("ack ")) acked.push(...line.slice(4).split(" "));
  }
  const ackedSet = new Set(acked);
  return { acked, inFlight: intents.filter((token) => !ackedSet.has(token)) };
}

function startAppender(
  db: string,
  driver: string,
  session: string,
  count: number,
  log: string,
  batch = 1,
): ChildProcess {
  return spawn(process.execPath, [APPENDER, db, driver, session, String(count), log, String(batch)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

async function waitForAcks(log: string, atLeast: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (readLog(log).acked.length < atLeast) {
    if (child.exitCode !== null) return;
    if (Date.now() > deadline) throw new Error(`appender made no progress in 30 s (${log})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Occurrences of every token in the store's message contents. */
function tokenCounts(db: string, driver: string): Map<string, number> {
  const store = openStore(db, { driver: driver as never, readOnly: true });
  const counts = new Map<string, number>();
  try {
    for (const session of store.listSessions({ limit: 1000, includeArchived: true })) {
      for (const message of store.getMessages(session.id, { includeInactive: true })) {
        const token = /appended (\S+)/.exec(String(message.content))?.[1];
        if (token) counts.set(token, (counts.get(token) ?? 0) + 1);
      }
    }
    expect(store.checkIntegrity()).toEqual({ ok: true, problems: [] });
  } finally {
    store.close();
  }
  return counts;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-mp-"));
  dirs.push(dir);
  return dir;
}

const drivers = availableDriverNames();
describe.skipIf(!existsSync(BUILT))("multi-process appends (needs the built package: npm run build)", () => {
  for (const driver of drivers) {
    it(`[${driver}] two processes appending at once lose nothing and duplicate nothing`, async () => {
      const dir = scratch();
      const db = join(dir, "state.db");
      const children = [
        startAppender(db, driver, "alpha", 300, join(dir, "a.log")),
        startAppender(db, driver, "beta", 300, join(dir, "b.log"), 7),
      ];
      const codes = await Promise.all(children.map(exited));
      expect(codes).toEqual([0, 0]);
      const counts = tokenCounts(db, driver);
      const acked = [...readLog(join(dir, "a.log")).acked, ...readLog(join(dir, "b.log")).acked];
      expect(acked.length).toBe(600);
      for (const token of acked) expect(counts.get(token), token).toBe(1);
      expect(counts.size).toBe(600);
    }, 120_000);

    it(`[${driver}] kill -9 in a loop of appends leaves every acknowledged row exactly once`, async () => {
      const dir = scratch();
      const db = join(dir, "state.db");
      const log = join(dir, "kill.log");
      for (let round = 0; round < 6; round++) {
        const child = startAppender(db, driver, `victim${round}`, 100_000, log, round % 2 === 0 ? 1 : 5);
        await waitForAcks(log, readLog(log).acked.length + 20 + round * 15, child);
        child.kill("SIGKILL");
        await exited(child);
      }
      const { acked, inFlight } = readLog(log);
      const counts = tokenCounts(db, driver);
      for (const token of acked) expect(counts.get(token), token).toBe(1);
      for (const token of inFlight) expect(counts.get(token) ?? 0).toBeLessThanOrEqual(1);
      const reported = new Set([...acked, ...inFlight]);
      for (const token of counts.keys()) expect(reported.has(token), `phantom ${token}`).toBe(true);
    }, 180_000);
  }
});
