/**
 * file: URLs: libSQL's own SQLite (3.45.1, inside the WAL-reset range) in this process. A file
 * that an embedded store made WAL is refused for writing (other processes may write it with
 * their SQLite), as the embedded stores refuse a vulnerable SQLite; reading it is fine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createStore, UnsafeSqliteError } from "@sessiondb/core";
import { resolveDriver } from "@sessiondb/node";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/open.js";

const folder = mkdtempSync(join(tmpdir(), "sessiondb-libsql-file-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("file: URLs", () => {
  it("a new file stays in rollback-journal mode and works", async () => {
    const store = await openStore(pathToFileURL(join(folder, "new.db")).href);
    try {
      expect(store.sqliteVersion).toBe("3.45.1");
      expect(store.journalMode).toBe("delete");
      const { id } = await store.createSession({ source: "file" });
      await store.appendMessage(id, { role: "user", content: "hello\u0000world" });
      expect((await store.getMessages(id))[0]?.content).toBe("hello\u0000world");
    } finally {
      await store.close();
    }
  });

  it("a WAL file is refused for writing (UnsafeSqliteError), read-only and allowUnsafeWal open it", async () => {
    const path = join(folder, "wal.db");
    const embedded = createStore(resolveDriver(), path);
    expect(embedded.journalMode).toBe("wal");
    embedded.createSession({ id: "s1", source: "embedded" });
    embedded.close();
    const url = pathToFileURL(path).href;
    await expect(openStore(url)).rejects.toBeInstanceOf(UnsafeSqliteError);
    const reader = await openStore(url, { readOnly: true });
    expect((await reader.getSession("s1"))?.source).toBe("embedded");
    await reader.close();
    const opted = await openStore(url, { allowUnsafeWal: true });
    expect(await opted.messageCount()).toBe(0);
    await opted.close();
  });
});
