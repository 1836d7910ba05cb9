/**
 * Closing a store releases its file descriptors at once. bun:sqlite defers the real close until
 * every statement is finalized (otherwise until garbage collection), so the driver finalizes
 * the store's cached statements on close; without that, a churning process leaked ~2
 * descriptors per open. Linux only (/proc/self/fd).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-bun-fds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!existsSync("/proc/self/fd"))("descriptors", () => {
  it("open → query → search → close in a loop keeps the descriptor count flat", () => {
    const path = join(dir, "state.db");
    const setup = openStore(path);
    setup.createSession({ id: "s", source: "test" });
    setup.appendMessage("s", { role: "user", content: "hello descriptors" });
    setup.close();
    const count = () => readdirSync("/proc/self/fd").length;
    const before = count();
    for (let i = 0; i < 40; i++) {
      const store = openStore(path);
      store.messageCount();
      store.search("hello");
      store.close();
    }
    expect(count()).toBeLessThanOrEqual(before + 1);
  });
});
