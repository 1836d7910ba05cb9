/**
 * A DELETE-mode writer killed mid-transaction leaves a hot rollback journal. A read-only
 * connection cannot roll it back, so it waits (like for a lock) and then says why; the next
 * writable open rolls it back and nothing uncommitted survives. While the writer lives, its
 * journal is not hot: that is an ordinary busy wait.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { availableDriverNames } from "./drivers-here.js";

const CHILD = new URL("./fixtures/hot-journal-child.mjs", import.meta.url).pathname;
const [driver] = availableDriverNames();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!driver)(`hot rollback journal [${driver}]`, () => {
  it("read-only opens wait for a live writer without blaming its journal; once it is killed they wait for a writer to roll it back, then explain; a writable open heals it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sessiondb-hot-"));
    dirs.push(dir);
    const db = join(dir, "state.db");
    const store = openStore(db, { driver, journalMode: "delete" });
    expect(store.journalMode).toBe("delete");
    store.createSession({ id: "s", source: "test" });
    store.appendMessage("s", { role: "user", content: "committed" });
    store.close();

    const child = spawn(process.execPath, [CHILD, driver as string, db], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (chunk) => String(chunk).includes("ready") && resolve());
      child.once("exit", (code) => reject(new Error(`child exited early (${code})`)));
    });
    // While the writer lives, its journal is not hot: a reader waits for its lock like for any
    // writer's, and the answer does not blame a journal left behind.
    expect(statSync(`${db}-journal`).size).toBeGreaterThan(0);
    let busy: { code?: string; message?: string } | undefined;
    try {
      openStore(db, { driver, readOnly: true, patience: { openMs: 600, writeMs: 600 } }).close();
    } catch (error) {
      busy = error as typeof busy;
    }
    expect(busy?.code).toBe("STORE_BUSY");
    expect(busy?.message).not.toMatch(/rollback journal|stopped mid-transaction/);

    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(statSync(`${db}-journal`).size).toBeGreaterThan(0);

    const started = Date.now();
    let failure: { code?: string; message?: string } | undefined;
    try {
      openStore(db, { driver, readOnly: true, patience: { openMs: 600, writeMs: 600 } }).close();
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(failure?.code).toBe("STORE_BUSY");
    expect(failure?.message).toMatch(/rollback journal/);

    const writer = openStore(db, { driver });
    expect(writer.getMessages("s").map((m) => m.content)).toEqual(["committed"]);
    writer.close();
    expect(existsSync(`${db}-journal`)).toBe(false);
    const reader = openStore(db, { driver, readOnly: true });
    expect(reader.messageCount()).toBe(1);
    expect(reader.checkIntegrity()).toEqual({ ok: true, problems: [] });
    reader.close();
  }, 60_000);
});
