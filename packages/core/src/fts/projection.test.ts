import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/support/driver.js";
import { FtsIndex, openTestStore, type TestStore } from "../../test/support/fts-context.js";
import { TOOL_CONTENT_PREFIX_CHARS } from "../constants.js";
import { BASE_INDEX, ftsFingerprintText, TRIGRAM_INDEX, triggerDdl, viewDdl } from "./projection.js";

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanup.reverse()) fn();
  cleanup = [];
});

function setup(): { store: TestStore; fts: FtsIndex } {
  const dir = tempDir();
  const store = openTestStore(dir.file("state.db"));
  cleanup.push(dir.cleanup, () => store.close());
  const fts = new FtsIndex(store.ctx);
  store.write(() => fts.install());
  fts.repairAtOpen();
  return { store, fts };
}

/** FTS5's own count of changes to its shadow tables: the structure record's version. */
function dataVersion(store: TestStore): string {
  return String(store.get("SELECT hex(block) AS b FROM messages_fts_data WHERE id = 10")?.b);
}

describe("projection", () => {
  it("view and triggers are generated from the same expression", () => {
    const content = BASE_INDEX.columns.find((column) => column.name === "content");
    const expr = (row: string) => content?.expr(row) ?? "";
    // Tool rows: 8192 characters, or 8192 bytes when a NUL comes early (substr() on TEXT stops there).
    expect(expr("")).toMatch(/^CASE WHEN role = 'tool' THEN .*x'00'.* ELSE content END$/);
    expect(expr("")).toContain("substr(content, 1, 8192)");
    expect(expr("")).toContain("CAST(substr(CAST(content AS BLOB), 1, 8192) AS TEXT)");
    expect(viewDdl(BASE_INDEX)).toContain(`${expr("")} AS content`);
    const triggers = triggerDdl(BASE_INDEX).join("\n");
    expect(triggers).toContain(expr("new."));
    expect(triggers).toContain(expr("old."));
    expect(ftsFingerprintText()).toContain("messages_fts_trigram_au");
    expect(viewDdl(TRIGRAM_INDEX)).toContain("WHERE role <> 'tool'");
  });

  it("a fresh store is ready with triggers published and integrity intact", () => {
    const { store, fts } = setup();
    expect(fts.status()).toEqual({ state: "ready", trigram: true });
    store.add({ content: "hello world" });
    expect(fts.integrityProblems()).toEqual([]);
  });

  it("integrity-check rank 1 passes after inserts, updates, role changes and deletes (tool rows > prefix)", () => {
    const { store, fts } = setup();
    const big = `${"alpha ".repeat(2000)}NEEDLE_BEYOND ${"omega ".repeat(100)}`;
    expect(big.length).toBeGreaterThan(TOOL_CONTENT_PREFIX_CHARS);
    const tool = store.add({ role: "tool", content: big, toolName: "bash" });
    const user = store.add({ role: "user", content: "please run ls" });
    const asst = store.add({ role: "assistant", content: "calling", toolCalls: '[{"name":"bash"}]' });
    store.add({ role: "assistant", content: null, toolCalls: '[{"name":"grep"}]' });
    store.add({ role: "user", content: "東京都に行きました" });
    expect(fts.integrityProblems()).toEqual([]);
    store.write(() =>
      store.conn.prepare("UPDATE messages SET content = ? WHERE id = ?").run(`${big} more`, tool),
    );
    store.write(() => store.conn.prepare("UPDATE messages SET role = 'tool' WHERE id = ?").run(user));
    store.write(() =>
      store.conn.prepare("UPDATE messages SET role = 'user', content = ? WHERE id = ?").run(big, tool),
    );
    store.write(() => store.conn.prepare("UPDATE messages SET tool_calls = NULL WHERE id = ?").run(asst));
    expect(fts.integrityProblems()).toEqual([]);
    store.write(() => store.conn.prepare("DELETE FROM messages WHERE id IN (?, ?)").run(user, asst));
    expect(fts.integrityProblems()).toEqual([]);
    // Deleting a session cascades to its messages; the delete triggers keep step.
    store.add({ session: "s2", content: "cascade me" });
    store.write(() => store.conn.exec("PRAGMA foreign_keys = ON"));
    store.conn.exec("PRAGMA foreign_keys = ON");
    store.write(() => store.conn.prepare("DELETE FROM sessions WHERE id = 's2'").run());
    expect(fts.integrityProblems()).toEqual([]);
  });

  it("a status-only update (active = 0) never touches either index", () => {
    const { store, fts } = setup();
    for (let i = 0; i < 20; i++) store.add({ content: `message ${i}` });
    store.conn.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('automerge', 0)");
    const before = dataVersion(store);
    const trigramBefore = String(
      store.get("SELECT hex(block) AS b FROM messages_fts_trigram_data WHERE id = 10")?.b,
    );
    store.write(() => store.conn.exec("UPDATE messages SET active = 0"));
    store.write(() => store.conn.exec("UPDATE messages SET content = content, token_count = 5"));
    expect(dataVersion(store)).toBe(before);
    expect(String(store.get("SELECT hex(block) AS b FROM messages_fts_trigram_data WHERE id = 10")?.b)).toBe(
      trigramBefore,
    );
    store.write(() => store.conn.exec("UPDATE messages SET content = 'changed' WHERE id = 1"));
    expect(dataVersion(store)).not.toBe(before);
    expect(fts.integrityProblems()).toEqual([]);
  });
});
