/**
 * The FTS admission on a libSQL server: a lease row. An embedded store holds a lock file whose
 * lock the kernel drops when its holder dies; a server has no such file, so the admission is a
 * row in `state_meta` (key `fts_admission_lease`) naming its holder and an expiry on the
 * server's clock. A holder renews it while its rebuild runs; when the holder dies, the row
 * simply expires and the next client takes it over — a killed rebuilder blocks the fleet for at
 * most one lease (LEASE_MS).
 *
 * sqld gives a write transaction that holds the write lock for more than 5 s while another
 * writer waits a TRANSACTION_TIMEOUT rollback. So the lease never makes anybody wait on the
 * write lock needlessly: a client reads the row first and writes only to take a free or expired
 * lease (a conditional upsert: two clients racing for it cannot both win), and a renewal is
 * skipped while this client's own write transaction (the rebuild) is open — it would queue
 * behind that transaction and get it rolled back.
 */
import { hostname } from "node:os";
import type { SqliteError } from "@sessiondb/core";
import type { AdmissionHolder, AdmissionLease, AsyncAdmission } from "@sessiondb/core/driver";
import type { LibsqlExecutor } from "./executor.js";

/** How long a lease lasts without renewal: a killed holder blocks rebuilds for at most this. */
export const LEASE_MS = 30_000;
/** Renew every third of the lease, so two lost renewals still keep it. */
export const RENEW_EVERY_MS = 10_000;
/** How often a waiting client looks at the row (one read each). */
const POLL_MS = 250;
const KEY = "fts_admission_lease";

/** The server's clock in ms (one clock for every client: theirs may disagree). */
const SERVER_NOW = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

/** The lease row as the FTS admission of a store on `executor`. `leaseMs` and `renewEveryMs`
 * are for tests (a short lease expires quickly). */
export function leaseAdmission(
  executor: LibsqlExecutor,
  timing: { leaseMs: number; renewEveryMs: number } = { leaseMs: LEASE_MS, renewEveryMs: RENEW_EVERY_MS },
): AsyncAdmission {
  return {
    async acquire({ timeoutMs }) {
      const started = Date.now();
      const token = crypto.randomUUID();
      const holder = describeSelf();
      /** A take's answer was lost: the row may be ours (dropped again if we give up). */
      let mayHold = false;
      for (;;) {
        let current: Lease | undefined;
        try {
          current = await readLease(executor);
          // A take whose answer was lost may have stored the row: the token tells.
          if (current?.token === token && current.expiresAt > current.serverNow)
            return { admitted: true, lease: heldLease(executor, token, timing) };
          if (current === undefined || current.expiresAt <= current.serverNow) {
            if (await takeLease(executor, token, holder, timing.leaseMs)) {
              return { admitted: true, lease: heldLease(executor, token, timing) };
            }
            current = await readLease(executor);
          }
        } catch (error) {
          const failure = error as SqliteError;
          // Unreachable or busy: keep trying within the timeout, as after a take that may or may
          // not be stored (the next read finds out); anything else cannot improve.
          const retryable =
            failure.resultCode === "BUSY" ||
            failure.resultCode === "LOCKED" ||
            failure.extendedCode === "LIBSQL_COMMIT_UNKNOWN";
          if (failure.extendedCode === "LIBSQL_COMMIT_UNKNOWN") mayHold = true;
          if (!retryable) {
            if (mayHold) await dropIfOurs(executor, token);
            return {
              admitted: false,
              reason: "environment",
              message: `The FTS admission lease could not be taken: ${failure.message}`,
              ...(failure.resultCode ? { code: failure.resultCode } : {}),
            };
          }
          if (Date.now() - started + POLL_MS > timeoutMs) {
            if (mayHold) await dropIfOurs(executor, token);
            return {
              admitted: false,
              reason: "environment",
              message: `The FTS admission lease could not be taken within ${timeoutMs} ms: ${failure.message}`,
              code: failure.resultCode,
            };
          }
          await sleep(POLL_MS);
          continue;
        }
        if (current !== undefined && Date.now() - started + POLL_MS > timeoutMs) {
          const left = Math.max(0, current.expiresAt - current.serverNow);
          return {
            admitted: false,
            reason: "held",
            message: `Another client is rebuilding the full-text index: the lease is held by ${formatHolder(current.holder)} for ${Math.ceil(left / 1000)} s more unless renewed.`,
            holder: current.holder,
          };
        }
        await sleep(POLL_MS);
      }
    },
  };
}

/** The lease row as read: who holds it, until when, on the server's clock. */
interface Lease {
  holder: AdmissionHolder;
  token: string;
  expiresAt: number;
  serverNow: number;
}

async function readLease(executor: LibsqlExecutor): Promise<Lease | undefined> {
  const { rows } = await executor.execute(
    `SELECT value, ${SERVER_NOW} AS server_now FROM state_meta WHERE key = ?`,
    [KEY],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  try {
    const { expiresAt, token, ...holder } = JSON.parse(String(row.value));
    return {
      holder: holder as AdmissionHolder,
      token: String(token),
      expiresAt: Number(expiresAt),
      serverNow: Number(row.server_now),
    };
  } catch {
    // An unreadable row is no lease: it is replaced.
    return undefined;
  }
}

/** Insert the row, or replace it only if it has expired (checked again by the server, so two
 * clients racing for an expired lease cannot both win). */
async function takeLease(
  executor: LibsqlExecutor,
  token: string,
  holder: AdmissionHolder,
  leaseMs: number,
): Promise<boolean> {
  const { changes } = await executor.execute(
    `INSERT INTO state_meta (key, value) VALUES (?, json_set(?, '$.expiresAt', ${SERVER_NOW} + ?))
     ON CONFLICT (key) DO UPDATE SET value = excluded.value
     WHERE coalesce(json_extract(state_meta.value, '$.expiresAt'), 0) <= ${SERVER_NOW}`,
    [KEY, JSON.stringify({ ...holder, token }), leaseMs],
  );
  return changes === 1;
}

function heldLease(
  executor: LibsqlExecutor,
  token: string,
  timing: { leaseMs: number; renewEveryMs: number },
): AdmissionLease & { readonly renewEveryMs: number } {
  let released = false;
  return {
    renewEveryMs: timing.renewEveryMs,
    async renew() {
      // See the module comment: never queue behind our own write transaction.
      if (released || executor.writeTransactionsOpen > 0) return;
      await executor.execute(
        `UPDATE state_meta SET value = json_set(value, '$.expiresAt', ${SERVER_NOW} + ?)
         WHERE key = ? AND json_extract(value, '$.token') = ?`,
        [timing.leaseMs, KEY, token],
      );
    },
    async release() {
      if (released) return;
      released = true;
      await dropIfOurs(executor, token);
    },
  };
}

/** Delete the lease row if `token` holds it; where the server cannot be reached, the lease
 * expires by itself. */
async function dropIfOurs(executor: LibsqlExecutor, token: string): Promise<void> {
  try {
    await executor.execute("DELETE FROM state_meta WHERE key = ? AND json_extract(value, '$.token') = ?", [
      KEY,
      token,
    ]);
  } catch {
    // Unreachable: the lease expires by itself.
  }
}

function describeSelf(): AdmissionHolder {
  const holder: AdmissionHolder = {
    pid: process.pid,
    runtime: runtimeName(),
    driver: "libsql",
    acquiredAt: new Date().toISOString(),
  };
  try {
    holder.host = hostname();
  } catch {
    // Deno without --allow-sys=hostname: the record just has no host.
  }
  return holder;
}

function runtimeName(): string {
  const global = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } };
  if (global.Bun) return `bun ${global.Bun.version}`;
  if (global.Deno) return `deno ${global.Deno.version.deno}`;
  return `node ${process.versions.node}`;
}

function formatHolder(holder: AdmissionHolder): string {
  return `pid ${holder.pid} (${[
    holder.runtime,
    holder.host && `host ${holder.host}`,
    `since ${holder.acquiredAt}`,
  ]
    .filter(Boolean)
    .join(", ")})`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
