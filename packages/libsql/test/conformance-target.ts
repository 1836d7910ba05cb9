/**
 * Core's conformance suite against the libSQL store: a target whose stores are `openStore` on a
 * real sqld. The database "at" a fixture path lives in the folder `<path>.sqld`, served by a
 * sqld node started when a store on that path opens and killed when the last one closes, so a
 * reopen finds the same data (sqld is started again on that folder) and no server outlives its
 * test. Its capabilities are none beyond the Store API: no files, journal policy, backups or
 * lock file — the server owns those.
 */

import { join } from "node:path";
import type { ConformanceStore, ConformanceTarget, Runner } from "@sessiondb/conformance";
import type { SqliteDriver, StoreOptions } from "@sessiondb/core";
import { type SqldServer, startSqld } from "@sessiondb/test-sqld";
import { openStore } from "../src/index.js";

/**
 * Conformance tests this target cannot pass, each with the reason its skip prints: limits of
 * sqld 0.24.32 itself, and tests that damage the store's file at the fixture path (the server's
 * database lives in the server's folder; test/recovery.test.ts damages an index through the
 * server instead).
 */
export const KNOWN_GAPS: ReadonlyMap<string, string> = new Map([
  ...[
    "invalid UTF-8 in content still opens read-only and reads back with replacement characters",
    "text without NUL, and invalid UTF-8 planted by another writer, read the same as before",
  ].map(
    (name) =>
      [name, "sqld cannot send TEXT that is not valid UTF-8 (HTTP 500, or a closed WebSocket)"] as const,
  ),
  ...[
    "substring and CJK search use the trigram index, short terms fall back to LIKE",
    "substring search over a 20 000-character run of one character",
    "substring search over a 1 MB run of one character, with long and short queries",
    "text after a NUL character is found on every route",
  ].map(
    (name) =>
      [
        name,
        "SQLite 3.45.1 in sqld: its trigram tokenizer stops at a NUL, so core answers substring and CJK searches by LIKE (test/parity.test.ts compares the hits)",
      ] as const,
  ),
  ...[
    "structural corruption makes the store sticky read-only with STORE_CORRUPT",
    "FTS corruption under a writer: appends go through, search falls back, a rebuild restores it",
  ].map(
    (name) =>
      [name, "the test damages the file at the fixture path; the server's database is elsewhere"] as const,
  ),
]);

/** The runner with KNOWN_GAPS skipped, saying why. */
export function skippingKnownGaps(
  runner: Runner,
  skip: (name: string, fn: () => void | Promise<void>) => void,
): Runner {
  return {
    describe: runner.describe,
    it(name, fn) {
      const reason = KNOWN_GAPS.get(name);
      if (reason === undefined) runner.it(name, fn);
      else skip(`${name} — skipped: ${reason}`, fn);
    },
  };
}

/** The server's own database file for a fixture path (sqld's layout: one default namespace). */
export function serverFile(path: string): string {
  return join(`${path}.sqld`, "data.sqld", "dbs", "default", "data");
}

/** The runtime's driver, opening the server's database file behind the server: the suite's raw
 * connections set up and inspect states the Store API cannot produce. */
function behindTheServer(driver: SqliteDriver): SqliteDriver {
  return { name: driver.name, open: (path, flags) => driver.open(serverFile(path), flags) };
}

export function sqldTarget(
  runner: Runner,
  transport: "http" | "ws",
  driver: SqliteDriver,
): ConformanceTarget {
  const nodes = new Map<string, { server: Promise<SqldServer>; stores: number }>();
  const release = async (path: string) => {
    const node = nodes.get(path);
    if (!node || --node.stores > 0) return;
    nodes.delete(path);
    await (await node.server).kill();
  };
  return {
    ...runner,
    name: `libSQL store (sqld over ${transport})`,
    driver: behindTheServer(driver),
    capabilities: [],
    async openStore(path: string, options: StoreOptions): Promise<ConformanceStore> {
      let node = nodes.get(path);
      if (!node) {
        node = { server: startSqld({ dir: `${path}.sqld` }), stores: 0 };
        nodes.set(path, node);
      }
      node.stores++;
      const server = await node.server;
      // The suite's options are the embedded stores'; `durability` is one the server store
      // refuses (its own tests check that), and no case here gives it.
      const { host: _fileHost, durability: _durability, ...storeOptions } = options;
      let store: Awaited<ReturnType<typeof openStore>>;
      try {
        store = await openStore(transport === "http" ? server.httpUrl : server.wsUrl, storeOptions);
      } catch (error) {
        await release(path);
        throw error;
      }
      const close = store.close.bind(store);
      let closed = false;
      store.close = async () => {
        await close();
        if (closed) return;
        closed = true;
        await release(path);
      };
      return store as unknown as ConformanceStore;
    },
  };
}
