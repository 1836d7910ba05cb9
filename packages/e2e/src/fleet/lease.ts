/**
 * The FTS rebuild lease as the server holds it: @sessiondb/libsql keeps it in `state_meta`
 * (key `fts_admission_lease`) as JSON naming the holder (pid, runtime, host) and its expiry on
 * the server's clock, renewed while the rebuild runs and deleted on release; a killed holder's
 * lease runs out instead of blocking the fleet. Read here with the raw client, beside the
 * roles, to catch a holder in the act and to see it gone at the end.
 */
import { type Client, createClient } from "@libsql/client";

/** The package's lease length: a killed holder blocks the next rebuild for at most this. */
export const LEASE_MS = 30_000;

export interface Lease {
  holderPid: number | undefined;
  /** When it runs out, and the server's clock now (ms). */
  expiresAt: number;
  serverNow: number;
  /** The row as stored, for messages. */
  raw: string;
}

export function openRawClient(url: string): Client {
  return createClient({ url });
}

/** The lease row, or undefined when there is none (never taken, or released). */
export async function readLease(client: Client): Promise<Lease | undefined> {
  const { rows } = await client.execute(
    "SELECT value, CAST(unixepoch('subsec') * 1000 AS INTEGER) AS server_now FROM state_meta WHERE key = 'fts_admission_lease'",
  );
  const row = rows[0];
  if (!row) return undefined;
  const raw = String(row.value);
  const value = JSON.parse(raw) as { pid?: unknown; expiresAt?: unknown };
  return {
    holderPid: typeof value.pid === "number" ? value.pid : undefined,
    expiresAt: Number(value.expiresAt),
    serverNow: Number(row.server_now),
    raw,
  };
}
