/**
 * The whole conformance suite on the async Store: `createAsyncStore` over the async test double
 * (test/support/async-executor.ts — a real better-sqlite3 connection on the store's file that
 * answers on later event-loop turns and queues callers behind an open transaction), with the
 * lock-file admission. The suite awaits every call, so these are the same tests the sync stores
 * pass on every driver. What only a sync store on a local file has (journal policy, file modes
 * and open errors on paths, a full disk, backup, repair, wrapped drivers) is a capability this
 * target does not declare: those tests print why they are skipped.
 */
import { existsSync } from "node:fs";
import { type ConformanceStore, runConformance } from "@sessiondb/conformance";
import { describe, it } from "vitest";
import { asyncDouble } from "../test/support/async-executor.js";
import { testDriver } from "../test/support/driver.js";
import { createAsyncStore } from "./async-store.js";
import { nodeFsHost } from "./host/node-fs.js";
import { lockFileAdmission } from "./locks/admission.js";
import type { StoreOptions } from "./model/types.js";

/** What a server engine does for its own connection: a short busy timeout (the store's patience
 * retries around it), foreign keys on, and WAL for a writable database it creates. Its database
 * always exists, as a server's does: a read-only store where there is no file yet reads an empty
 * database. */
async function openOnDouble(path: string, options: StoreOptions): Promise<ConformanceStore> {
  const readOnly = options.readOnly === true;
  if (readOnly && !existsSync(path)) testDriver.open(path, { readOnly: false }).close();
  const conn = testDriver.open(path, { readOnly });
  try {
    conn.exec("PRAGMA busy_timeout = 100");
    conn.exec("PRAGMA foreign_keys = ON");
    if (!readOnly) conn.prepare("PRAGMA journal_mode = WAL").get();
    const executor = { ...asyncDouble(conn), close: () => conn.close() };
    return (await createAsyncStore(executor, {
      ...options,
      admission: lockFileAdmission(testDriver, path, options.host),
    })) as unknown as ConformanceStore;
  } catch (error) {
    conn.close();
    throw error;
  }
}

runConformance({
  name: "async double over better-sqlite3",
  driver: testDriver,
  host: nodeFsHost,
  describe,
  it,
  openStore: openOnDouble,
  capabilities: ["admission-lock", "child-processes"],
});
