/** `openStore`'s own handling of its options: bad ones are refused before any file exists, and
 * null or an explicit undefined mean the defaults (the runtime's host included). */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-bun-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("openStore options", () => {
  it("bad options are INVALID_INPUT and create nothing; null options and host are the defaults", () => {
    const path = join(dir, "state.db");
    const throwing = Object.defineProperty({}, "readOnly", {
      enumerable: true,
      get() {
        throw new Error("getter exploded");
      },
    });
    for (const options of [
      42,
      "options",
      [],
      { readOnly: "yes" },
      { patience: { writeMs: Number.NaN } },
      throwing,
    ]) {
      expect(() => openStore(path, options as never)).toThrow(
        expect.objectContaining({ code: "INVALID_INPUT" }),
      );
    }
    expect(existsSync(path)).toBe(false);
    // An explicit undefined host must not drop the adapter's: the host is what makes the file 0600.
    openStore(path, { host: undefined }).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    openStore(path, null).close();
  });
});
