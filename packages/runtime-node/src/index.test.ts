/**
 * `openStore` on this Node: the default driver, explicit choices, the one-library-per-process
 * guard, and core's conformance suite on every driver that loads here.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { childAppender, runConformance } from "@sessiondb/conformance";
import { nodeFsHost } from "@sessiondb/core/host";
import { afterAll, describe, expect, it } from "vitest";
import {
  DriverUnavailableError,
  type NodeDriverName,
  openStore,
  resolveDriver,
  type SqliteDriver,
  SqliteError,
  type Store,
} from "./index.js";

const NAMES: NodeDriverName[] = ["better-sqlite3", "node:sqlite"];

function tryResolve(name: NodeDriverName): SqliteDriver | Error {
  try {
    return resolveDriver(name);
  } catch (error) {
    return error as Error;
  }
}

const outcome = new Map(NAMES.map((name) => [name, tryResolve(name)] as const));
const loaded = NAMES.filter((name) => !(outcome.get(name) instanceof Error));

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-node-"));
  dirs.push(dir);
  return join(dir, "state.db");
}

describe(`openStore on Node ${process.versions.node} (drivers here: ${loaded.join(", ") || "none"})`, () => {
  it("a driver that does not load says what to install", () => {
    for (const name of NAMES) {
      const result = outcome.get(name);
      if (!(result instanceof Error)) continue;
      expect(result).toBeInstanceOf(DriverUnavailableError);
      expect(result.message).toMatch(/npm (install|rebuild) better-sqlite3|Node ≥ 22\.13/);
    }
  });

  it("an unknown driver name is refused", () => {
    expect(() => openStore(storePath(), { driver: "sqlite3" as NodeDriverName })).toThrow(
      DriverUnavailableError,
    );
  });

  it("bad options are INVALID_INPUT and create nothing; null options, driver and host are the defaults", () => {
    const path = storePath();
    const bad = [
      42,
      "options",
      [],
      { driver: 42 },
      { driver: {} },
      { readOnly: "yes" },
      { journalMode: "bogus" },
      { patience: { writeMs: Number.NaN } },
      Object.defineProperty({}, "driver", {
        enumerable: true,
        get() {
          throw new Error("getter exploded");
        },
      }),
    ];
    for (const options of bad) {
      expect(() => openStore(path, options as never)).toThrow(
        expect.objectContaining({ code: "INVALID_INPUT" }),
      );
    }
    expect(existsSync(path)).toBe(false);
    // An explicit undefined host must not drop the adapter's: the host is what makes the file 0600.
    openStore(path, { driver: null, host: undefined } as never).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    openStore(path, null).close();
  });

  it("opens with the default driver, writes durably, reads back, reopens read-only", () => {
    const path = storePath();
    let store: Store = openStore(path);
    try {
      expect(loaded).toContain(store.driverName);
      const session = store.createSession({ id: "s1", source: "cli" });
      store.appendMessage(session.id, { role: "user", content: "rotate the signing keys" });
      expect(store.messageCount("s1")).toBe(1);
    } finally {
      store.close();
    }
    store = openStore(path, { readOnly: true });
    try {
      expect(store.readOnly).toBe(true);
      expect(store.getMessages("s1").map((message) => message.content)).toEqual(["rotate the signing keys"]);
      expect(store.search("signing").hits.length).toBe(1);
    } finally {
      store.close();
    }
  });

  it("an explicit driver name is honoured", () => {
    const name = loaded[0];
    if (!name) return;
    const store = openStore(storePath(), { driver: name });
    expect(store.driverName).toBe(name);
    store.close();
  });

  it("refuses a second SQLite library in this process", () => {
    const name = loaded[0];
    if (!name) return;
    openStore(storePath(), { driver: name }).close();
    const other = NAMES.find((candidate) => candidate !== name) as NodeDriverName;
    // A driver object carrying the other library's name: the guard goes by name, before any open.
    const real = resolveDriver(name);
    const impostor: SqliteDriver = { name: other, open: (path, flags) => real.open(path, flags) };
    const error = (() => {
      try {
        openStore(storePath(), { driver: impostor });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(DriverUnavailableError);
    expect((error as Error).message).toMatch(/already opened a store with/);
  });

  it("a missing store opened read-only fails with a typed error and creates nothing", () => {
    const path = storePath();
    let thrown: unknown;
    try {
      openStore(path, { readOnly: true }).close();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeDefined();
    expect(thrown instanceof SqliteError ? thrown.resultCode : (thrown as Error).name).toMatch(
      /CANTOPEN|StoreOpenError/,
    );
  });
});

for (const name of loaded) {
  const driver = outcome.get(name) as SqliteDriver;
  // The child appender runs this Node with the same driver, through the built adapter.
  const appender = childAppender(({ path, sessionId, ledger }) => [
    process.execPath,
    fileURLToPath(new URL("../test/fixtures/backup-appender.mjs", import.meta.url)),
    path,
    name,
    sessionId,
    ledger,
  ]);
  runConformance({ name, driver, host: nodeFsHost, appender, describe, it });
}
