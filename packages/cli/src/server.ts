/**
 * A store on a libSQL server (sqld, or a hosted database that speaks its protocol), opened
 * through @sessiondb/libsql. That package is imported only when `--db` is a server URL, so a
 * file path, `--help` and `--version` never load it or its network client.
 *
 * Its Store answers with promises where a file store answers at once; the commands await every
 * call (`CliStore`), so the same code serves both.
 */
import type { Store, StoreOptions } from "@sessiondb/core";
import { DriverUnavailableError } from "@sessiondb/core";
import { registerSecret } from "./exit.js";

/** The Store as the commands use it: each method's result may arrive at once (a file store) or as
 * a promise (a server store), and is always awaited. */
export type CliStore = {
  [K in keyof Store]: Store[K] extends (...args: infer A) => infer R
    ? (...args: A) => R | Promise<Awaited<R>>
    : Store[K];
};

/** What talks to the store: a file store's SQLite binding, or the server's client. */
export function driverOf(store: CliStore): string {
  // A server store has no SQLite binding in this process (no driverName).
  return (store as { driverName?: string }).driverName ?? "@libsql/client";
}

/** The environment variable that carries the server's token. */
export const TOKEN_VARIABLE = "SESSIONDB_AUTH_TOKEN";

/** The package that opens server stores, and what it must export. */
const SERVER_PACKAGE = "@sessiondb/libsql";
interface ServerModule {
  openStore(url: string, options: StoreOptions & { authToken?: string }): unknown;
}

/** Credentials inside the URL itself (a password, an `authToken` parameter) are secrets too. */
function registerUrlSecrets(url: string): void {
  try {
    const parsed = new URL(url);
    registerSecret(decodeURIComponent(parsed.password));
    registerSecret(parsed.searchParams.get("authToken") ?? undefined);
    // A short password alone is not registered (it would blank out words); with its user name
    // and the "@" it is distinctive at any length.
    if (parsed.password) registerSecret(`${parsed.username}:${parsed.password}@`);
  } catch {
    // Checked by storeLocation before this is reached.
  }
}

/**
 * Open the database at `url` on a libSQL server. The token comes from SESSIONDB_AUTH_TOKEN (read
 * strictly: under Deno without --allow-env that is a permission error, not "no token"); it and
 * any credentials in the URL are kept out of every message this process prints.
 */
export async function openServerStore(
  where: { url: string; shown: string },
  options: StoreOptions,
): Promise<CliStore> {
  registerUrlSecrets(where.url);
  const authToken = process.env[TOKEN_VARIABLE] || undefined;
  registerSecret(authToken);
  let mod: ServerModule;
  try {
    // A computed specifier: the bundler leaves it alone, and only a URL ever loads it.
    const specifier: string = SERVER_PACKAGE;
    mod = (await import(specifier)) as ServerModule;
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    throw new DriverUnavailableError(
      `${where.shown} is a libSQL server, and server support (${SERVER_PACKAGE}) could not be loaded (${reason}). Reinstall sessiondb (it brings ${SERVER_PACKAGE}), or give --db a file path.`,
      { cause: error },
    );
  }
  if (typeof mod.openStore !== "function") {
    throw new DriverUnavailableError(
      `${where.shown} is a libSQL server, and ${SERVER_PACKAGE} does not export openStore: it is older or newer than this CLI. Reinstall sessiondb.`,
    );
  }
  return (await mod.openStore(where.url, { ...options, ...(authToken ? { authToken } : {}) })) as CliStore;
}
