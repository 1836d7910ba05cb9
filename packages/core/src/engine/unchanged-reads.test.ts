/**
 * The FTS snapshot is read again exactly when the database changed: another connection's
 * commit, this connection's own rows, this connection's own schema change (which changes no row
 * and leaves data_version alone). The conformance suite's "search state between searches" proves
 * the same through the Store on every driver; here each counter is tested alone on one
 * connection, counting how often the snapshot's statement runs.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir, wrappingDriver } from "../../test/support/driver.js";
import { FtsIndex, openTestStore, type TestStore } from "../../test/support/fts-context.js";
import { type FtsSnapshot, loadSnapshot } from "../fts/state.js";
import { snapshot, write } from "../policy/calls.js";
import { exec } from "./effects.js";
import { runSync } from "./run-sync.js";

let dir: ReturnType<typeof tempDir>;
let store: TestStore;
/** Runs of the snapshot's statement (the one joining sqlite_master). */
let reads = 0;

beforeEach(() => {
  reads = 0;
  dir = tempDir();
  const driver = wrappingDriver((sql, statement) =>
    sql.includes("FROM sqlite_master m JOIN")
      ? {
          ...statement,
          all: (...params) => {
            reads++;
            return statement.all(...params);
          },
        }
      : statement,
  );
  store = openTestStore(dir.file("state.db"), { driver });
  const fts = new FtsIndex(store.ctx);
  store.write(() => fts.install());
  fts.repairAtOpen();
});

afterEach(() => {
  store.close();
  dir.cleanup();
});

const read = (): FtsSnapshot => runSync(store.ctx, snapshot(loadSnapshot));

describe("the FTS snapshot between two reads", () => {
  it("is read once while nothing changes, and the same snapshot comes back", () => {
    const first = read();
    expect(first.objects.has("messages_fts_ai")).toBe(true);
    const before = reads;
    expect(read()).toBe(first);
    expect(read()).toBe(first);
    expect(reads).toBe(before);
  });

  it("is read again after another connection's commit", () => {
    read();
    const other = wrappingDriver((_, statement) => statement).open(dir.file("state.db"), { readOnly: false });
    other.exec("DROP TRIGGER messages_fts_ai");
    other.close();
    expect(read().objects.has("messages_fts_ai")).toBe(false);
  });

  it("is read again after another connection's row change (no schema change)", () => {
    read();
    const other = wrappingDriver((_, statement) => statement).open(dir.file("state.db"), { readOnly: false });
    other.exec("INSERT INTO state_meta(key, value) VALUES ('fts_stale', 'test')");
    other.close();
    expect(read().meta.get("fts_stale")).toBe("test");
  });

  it("is read again after this connection's own schema change (no row changed)", () => {
    read();
    store.conn.exec("DROP TRIGGER messages_fts_ai");
    expect(read().objects.has("messages_fts_ai")).toBe(false);
  });

  it("is read again after this connection's own row change (no schema change)", () => {
    expect(read().meta.has("fts_stale")).toBe(false);
    store.conn.exec("INSERT INTO state_meta(key, value) VALUES ('fts_stale', 'test')");
    expect(read().meta.get("fts_stale")).toBe("test");
  });

  it("is read every time inside a write, and a rolled-back schema change leaves no trace", () => {
    read();
    const before = reads;
    let inside: FtsSnapshot | undefined;
    expect(() =>
      runSync(
        store.ctx,
        write(() => dropAndThrow((snap) => (inside = snap))),
      ),
    ).toThrow("rolled back");
    expect(inside?.objects.has("messages_fts_ai")).toBe(false);
    expect(reads).toBe(before + 1);
    // Another schema change of this connection's, no row changed: schema_version is where the
    // rolled-back one took it, so a snapshot kept from inside the write would be served here.
    store.conn.exec("DROP TRIGGER messages_fts_ad");
    const after = read();
    expect(after.objects.has("messages_fts_ai")).toBe(true);
    expect(after.objects.has("messages_fts_ad")).toBe(false);
  });
});

function* dropAndThrow(seen: (snap: FtsSnapshot) => void) {
  yield* exec("DROP TRIGGER messages_fts_ai");
  seen(yield* loadSnapshot());
  throw new Error("rolled back");
}
