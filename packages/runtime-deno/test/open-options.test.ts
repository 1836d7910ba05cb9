/** `openStore`'s own handling of its options: bad ones are refused before any file exists, an
 * unknown driver name is DRIVER_UNAVAILABLE, and null or an explicit undefined mean the defaults
 * (the runtime's host included). */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openStore } from "../src/index.ts";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-deno-options-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("openStore options", () => {
  it("bad options are INVALID_INPUT and create nothing; null options, driver and host are the defaults", () => {
    const path = join(dir, "state.db");
    const throwing = Object.defineProperty({}, "driver", {
      enumerable: true,
      get() {
        throw new Error("getter exploded");
      },
    });
    const bad = [
      42,
      "options",
      [],
      { driver: 42 },
      { driver: {} },
      { readOnly: "yes" },
      { patience: { writeMs: Number.NaN } },
      throwing,
    ];
    for (const [i, options] of bad.entries()) {
      assert.throws(() => openStore(path, options as never), { code: "INVALID_INPUT" }, `bad[${i}]`);
    }
    assert.equal(existsSync(path), false);
    // An explicit undefined host must not drop the adapter's: the host is what makes the file 0600.
    openStore(path, { driver: null, host: undefined } as never).close();
    assert.equal(statSync(path).mode & 0o777, 0o600);
    openStore(path, null).close();
  });

  it("a driver is named the way the store reports it; an unknown name is DRIVER_UNAVAILABLE", () => {
    const path = join(dir, "named.db");
    const store = openStore(path, { driver: "node:sqlite" });
    assert.equal(store.driverName, "node:sqlite");
    store.close();
    assert.throws(() => openStore(path, { driver: "sqlite3" as never }), { code: "DRIVER_UNAVAILABLE" });
  });
});
