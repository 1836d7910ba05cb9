/**
 * The FTS rebuild lease as the server holds it: one row saying who rebuilds and until when
 * (written by @sessiondb/libsql; a killed rebuilder's lease runs out instead of blocking the
 * fleet). Read here with the raw client, beside the roles, to catch a holder in the act.
 */
import { type Client, createClient } from "@libsql/client";

/** The lease the fleet's roles are given: short, so an expiry is seen within the episode. */
export const LEASE_MS = 3_000;

export interface Lease {
  /** Who holds it, as the store records it; null when released. */
  holder: string | null;
  /** The holder's process id, when the record names one. */
  holderPid: number | undefined;
  /** When it runs out (ms since the epoch). */
  expiresAt: number;
}

export async function openRawClient(url: string): Promise<Client> {
  return createClient({ url });
}

/** The lease row, or undefined when there is none (never taken). */
export async function readLease(client: Client): Promise<Lease | undefined> {
  const result = await client.execute("SELECT holder, expires_at FROM fts_lease WHERE name = 'fts-rebuild'");
  const row = result.rows[0];
  if (!row) return undefined;
  const holder = row.holder === null ? null : String(row.holder);
  const pid = holder === null ? undefined : /\bpid[ =:]*(\d+)/.exec(holder)?.[1];
  return {
    holder,
    holderPid: pid === undefined ? undefined : Number(pid),
    expiresAt: Number(row.expires_at),
  };
}
