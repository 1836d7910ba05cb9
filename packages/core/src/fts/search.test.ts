import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/support/driver.js";
import { FtsIndex, openTestStore, type TestStore } from "../../test/support/fts-context.js";
import { InvalidInputError } from "../errors.js";

let dir: ReturnType<typeof tempDir>;
let store: TestStore;
let fts: FtsIndex;

beforeEach(() => {
  dir = tempDir();
  store = openTestStore(dir.file("state.db"));
  fts = new FtsIndex(store.ctx);
  store.write(() => fts.install());
  fts.repairAtOpen();
});
afterEach(() => {
  store.close();
  dir.cleanup();
});

const ids = (r: { hits: Array<{ messageId: number }> }) => r.hits.map((h) => h.messageId);

describe("search", () => {
  it("ranks by bm25 and marks snippets", () => {
    const once = store.add({
      content: "the deploy script failed once, then we went for lunch and talked about other things entirely",
    });
    const thrice = store.add({ content: "deploy deploy deploy" });
    store.add({ content: "nothing to see" });
    const result = fts.search("deploy");
    expect(result.route).toBe("fts");
    expect(ids(result)).toEqual([thrice, once]);
    expect(result.hits[0]?.snippet).toBe("«deploy» «deploy» «deploy»");
    expect(result.hits[1]).toMatchObject({ sessionId: "s1", role: "user", toolName: null });
    expect(result.hits[1]?.snippet).toContain("«deploy»");
  });

  it("equal ranks come in id order, so rank pages are stable", () => {
    const same = Array.from({ length: 30 }, () => store.add({ content: "tie tie" }));
    for (const substring of [false, true]) {
      expect(ids(fts.search("tie", { substring, limit: 100 }))).toEqual(same);
      const pages = [0, 7, 14, 21, 28].flatMap((offset) =>
        ids(fts.search("tie", { substring, limit: 7, offset })),
      );
      expect(pages).toEqual(same);
    }
  });

  it("FTS5 snippets only on short rows; long rows get the SQL window", () => {
    const short = store.add({ content: "the deploy went fine" });
    const long = store.add({ content: `${"padding words ".repeat(100)}then the deploy failed` });
    const accented = store.add({ content: `Café ${"au lait ".repeat(200)}` });
    const result = fts.search("deploy", { sort: "oldest" });
    expect(ids(result)).toEqual([short, long]);
    expect(result.hits[0]?.snippet).toBe("the «deploy» went fine");
    expect(result.hits[1]?.snippet).toBe(
      `…${`${"padding words ".repeat(3)}then the `.slice(-40)}«deploy» failed`,
    );
    // FTS5 folds the accent, the byte search cannot: the row shows its start, unmarked.
    const cafe = fts.search("cafe");
    expect(ids(cafe)).toEqual([accented]);
    expect(cafe.hits[0]?.snippet).toMatch(/^Café au lait .*…$/);
  });

  it("finds compound terms as phrases, and tool names and tool calls", () => {
    const a = store.add({ content: "edit my-app.config.ts now" });
    store.add({ content: "my app has a config in ts" });
    const b = store.add({
      role: "assistant",
      content: null,
      toolCalls: '[{"name":"read_file","args":{"path":"x"}}]',
    });
    const c = store.add({ role: "tool", content: "ok", toolName: "kubectl" });
    expect(ids(fts.search("my-app.config.ts"))).toEqual([a]);
    expect(ids(fts.search("read_file"))).toEqual([b]);
    expect(ids(fts.search("kubectl"))).toEqual([c]);
    expect(fts.search("kubectl").hits[0]?.toolName).toBe("kubectl");
    const viaLike = fts.search("read_file", { roles: ["assistant", "tool"] });
    expect(viaLike).toMatchObject({ route: "like", hits: [{ messageId: b }] });
    expect(viaLike.hits[0]?.snippet).toBe('[{"name":"«read_file»","args":{"path":"x"}}]');
  });

  it("tool-role searches scan full content beyond the 8192-character prefix", () => {
    const big = `${"noise ".repeat(2000)}zebracorn at the end`;
    const id = store.add({ role: "tool", content: big, toolName: "bash" });
    expect(fts.search("zebracorn").hits).toEqual([]); // the index holds the prefix only
    const result = fts.search("zebracorn", { roles: ["tool"] });
    expect(result.route).toBe("like");
    expect(ids(result)).toEqual([id]);
    expect(result.hits[0]?.snippet).toMatch(/^….*«zebracorn» at the end$/);
    expect(ids(fts.search("noise", { roles: ["tool"] }))).toEqual([id]);
  });

  it("CJK: trigram for terms of 3+ characters, LIKE below", () => {
    const tokyo = store.add({ content: "昨日は東京都に行きました" });
    const kyoto = store.add({ content: "京都の寺" });
    const r3 = fts.search("東京都");
    expect(r3.route).toBe("trigram");
    expect(ids(r3)).toEqual([tokyo]);
    expect(r3.hits[0]?.snippet).toContain("«東京都»");
    const r2 = fts.search("京都");
    expect(r2.route).toBe("like");
    expect(ids(r2).sort()).toEqual([tokyo, kyoto].sort());
    expect(fts.search("東京").hits[0]?.snippet).toContain("«東京»");
  });

  it("substring search uses trigram, and LIKE for short terms", () => {
    const id = store.add({ content: "the configuration loader" });
    expect(fts.search("figur").hits).toEqual([]);
    const r = fts.search("figur", { substring: true });
    expect(r.route).toBe("trigram");
    expect(ids(r)).toEqual([id]);
    expect(fts.search("fi", { substring: true }).route).toBe("like");
  });

  it("filters by role, source, session and time range; sorts and pages", () => {
    const rows: number[] = [];
    for (let i = 0; i < 10; i++) {
      rows.push(
        store.add({
          session: i % 2 ? "odd" : "even",
          source: i % 2 ? "cron" : "cli",
          role: i % 3 ? "assistant" : "user",
          content: `common word ${"extra ".repeat(i)}`,
          timestamp: 1000 + i,
        }),
      );
    }
    const all = (o = {}) => ids(fts.search("common", { limit: 100, ...o }));
    expect(all().length).toBe(10);
    expect(all({ sort: "newest" })).toEqual([...rows].reverse());
    expect(all({ sort: "oldest" })).toEqual(rows);
    expect(all({ roles: ["user"], sort: "oldest" })).toEqual([rows[0], rows[3], rows[6], rows[9]]);
    expect(all({ sources: ["cron"], sort: "oldest" })).toEqual(rows.filter((_, i) => i % 2));
    expect(all({ sessionId: "even", sort: "oldest" })).toEqual(rows.filter((_, i) => i % 2 === 0));
    expect(all({ since: 1003, until: 1006, sort: "oldest" })).toEqual(rows.slice(3, 6));
    expect(ids(fts.search("common", { sort: "oldest", limit: 3, offset: 4 }))).toEqual(rows.slice(4, 7));
    expect(ids(fts.search("common", { limit: 0 }))).toEqual([]);
    // the same filters on the LIKE route
    expect(
      ids(fts.search("common", { roles: ["user", "tool"], sort: "oldest", limit: 2, offset: 1 })),
    ).toEqual([rows[3], rows[6]]);
    expect(
      ids(fts.search("common", { roles: ["tool", "user"], sources: ["cron"], until: 1009, sort: "newest" })),
    ).toEqual([rows[3]]);
  });

  it("rejects bad options with InvalidInputError and caps the limit", () => {
    for (const bad of [
      { limit: -1 },
      { offset: 1.5 },
      { roles: ["robot"] },
      { since: Number.NaN },
      { sort: "best" },
      { sources: "cli" },
    ]) {
      expect(() => fts.search("x", bad as never)).toThrow(InvalidInputError);
    }
    expect(() => fts.search(42 as never)).toThrow(InvalidInputError);
    for (let i = 0; i < 5; i++) store.add({ content: "cap" });
    expect(fts.search("cap", { limit: 1_000_000 }).hits.length).toBe(5);
  });

  it("LIKE escapes wildcards and folds ASCII case", () => {
    const pct = store.add({ content: "progress 100% done" });
    store.add({ content: "progress 1000 done" });
    const under = store.add({ content: "call my_func()" });
    store.add({ content: "call myxfunc()" });
    const like = { roles: ["user", "tool"] as const };
    expect(ids(fts.search('"100%"', { ...like, roles: [...like.roles] }))).toEqual([pct]);
    expect(ids(fts.search("my_func", { roles: ["user", "tool"] }))).toEqual([under]);
    expect(ids(fts.search("PROGRESS", { roles: ["user", "tool"], sort: "oldest" })).length).toBe(2);
    expect(fts.search("MY_FUNC", { roles: ["user", "tool"] }).hits[0]?.snippet).toBe("call «my_func»()");
  });

  it("boolean operators work on both routes", () => {
    const a = store.add({ content: "alpha beta" });
    const b = store.add({ content: "alpha gamma" });
    const c = store.add({ content: "delta" });
    for (const roles of [undefined, ["user", "tool"] as Array<"user" | "tool">]) {
      const o = { roles, sort: "oldest" as const };
      expect(ids(fts.search("alpha NOT beta", o))).toEqual([b]);
      expect(ids(fts.search("beta OR delta", o))).toEqual([a, c]);
      expect(ids(fts.search('"alpha gamma"', o))).toEqual([b]);
      expect(ids(fts.search("alph*", o))).toEqual([a, b]);
    }
  });

  it("hostile queries never throw and never return wrong rows", () => {
    const drop = store.add({ content: "never drop table messages in production" });
    const near = store.add({ content: "the shop is near the station" });
    const plain = store.add({ content: "a plain message with foo" });
    const hostile: Array<[string, number[]]> = [
      ['"', []],
      ["*", []],
      ["NEAR(", [near]],
      ["NEAR(shop station)", []],
      ["-", []],
      [":", []],
      ["((( foo", [plain]],
      ["foo )))", [plain]],
      ["'; DROP TABLE messages; --", [drop]],
      ['" OR 1=1 --', []],
      ["messages_fts MATCH '*'", []],
      ["content:foo", []],
      ["{foo}", [plain]],
      ["foo^", [plain]],
      ["AND OR NOT", []],
      [`${'AND ( OR ) NOT * " - : ^ '.repeat(500)}`, []],
      [`${"(".repeat(10_000)}`, []],
    ];
    for (const [q, expected] of hostile) {
      for (const options of [{}, { roles: ["user" as const, "tool" as const] }, { substring: true }]) {
        const result = fts.search(q, options);
        expect(ids(result).sort(), `${q.slice(0, 40)} ${JSON.stringify(options)}`).toEqual(expected);
      }
    }
    expect(store.get("SELECT count(*) AS n FROM messages")?.n).toBe(3);
  });
});
