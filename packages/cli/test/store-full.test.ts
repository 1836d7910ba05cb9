/**
 * A store whose disk is full, for real (a small tmpfs; needs root, else skipped with the reason):
 * the CLI says STORE_FULL in one line and exits 10, and the store keeps everything it had.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, expectOneLineError, tempDir, tmpfsOrSkip, unmount, withStore } from "./helpers.js";

/** Take every byte the file system has left, with a file of the test's own. */
function fillRest(dir: string): void {
  const fd = fs.openSync(path.join(dir, "pad"), "a");
  try {
    for (let chunk = 64 * 1024; chunk >= 1; ) {
      try {
        fs.writeSync(fd, Buffer.alloc(chunk, 1));
      } catch (error) {
        if ((error as { code?: unknown }).code !== "ENOSPC") throw error;
        chunk = Math.floor(chunk / 2);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

describe("a full disk", () => {
  const mounts: string[] = [];
  afterAll(() => {
    for (const dir of mounts) unmount(dir);
  });

  it("a writing command exits 10 with STORE_FULL in one line; the store keeps every row", (ctx) => {
    const dir = path.join(tempDir(), "full");
    tmpfsOrSkip(ctx, dir, "size=1m");
    mounts.push(dir);
    const db = path.join(dir, "state.db");
    withStore(db, (store) => {
      store.createSession({ id: "s", source: "test" });
      store.appendMessage("s", { role: "user", content: "kept" });
    });
    fillRest(dir);
    const r = cli(["--db", db, "fts", "rebuild"]);
    expectOneLineError(r, 10, "STORE_FULL");
    // The store was closed with room, so its WAL files are gone: the open needs a new -shm.
    expect(r.stderr).toMatch(/opening ".*state\.db" failed: .*-shm/);
    fs.rmSync(path.join(dir, "pad"));
    const kept = withStore(db, (store) => [store.checkIntegrity().ok, store.messageCount("s")], {
      readOnly: true,
    });
    expect(kept).toEqual([true, 1]);
  });
});
