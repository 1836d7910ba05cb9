/** The adapter's `repairStore(path)` supplies its own driver and host and honours the driver choice. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { openStore, repairStore } from "../src/index.js";
import { availableDriverNames } from "./drivers-here.js";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-repair-adapter-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

for (const driver of availableDriverNames()) {
  it(`repairStore on ${driver}: a sound store needs nothing, and the report counts it`, async () => {
    const path = join(dir, `${driver.replace(/\W/g, "")}.db`);
    const store = openStore(path, { driver });
    store.createSession({ id: "s", source: "test" });
    store.appendMessages("s", [
      { role: "user", content: "one" },
      { role: "assistant", content: "two" },
    ]);
    store.close();
    const report = await repairStore(path, { driver, checkOnly: true });
    expect(report.strategy).toBe("none");
    expect(report.outcome).toBe("unchanged");
    expect(report.countsBefore).toEqual({ sessions: 1, messages: 2, usage: 0 });
  });
}
