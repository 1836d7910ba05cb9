import { describe, expect, it } from "vitest";
import { MAX_SEARCH_QUERY_CHARS } from "../constants.js";
import { likeSnippet, markMatches } from "./like-snippet.js";
import { hasCjk, parseQuery, toMatchExpression } from "./query.js";
import { chooseRoute } from "./route.js";
import { likePattern } from "./search-sql.js";

const fts = (q: string) => toMatchExpression(parseQuery(q), { prefix: true });

describe("sanitizer", () => {
  it("quotes every term, so nothing is ever an FTS5 operator", () => {
    expect(fts("hello world")).toBe('"hello" "world"');
    expect(fts("my-app.config.ts")).toBe('"my-app.config.ts"');
    expect(fts("tool_name:bash")).toBe('"tool_name:bash"');
    // Inner punctuation makes a compound term (a phrase): `fn(arg` finds "fn" followed by "arg".
    expect(fts("NEAR(a b)")).toBe('"NEAR(a" "b"');
    expect(fts("NEAR(")).toBe('"NEAR"');
    expect(fts("-foo +bar ^baz")).toBe('"foo" "bar" "baz"');
  });

  it("keeps balanced phrases, AND/OR/NOT and trailing prefix stars", () => {
    expect(fts('"exact phrase" other')).toBe('"exact phrase" "other"');
    expect(fts("error OR warning")).toBe('"error" OR "warning"');
    expect(fts("a AND b")).toBe('"a" "b"');
    expect(fts("deploy NOT staging")).toBe('"deploy" NOT "staging"');
    expect(fts("a NOT b c OR d")).toBe('"a" "c" NOT "b" OR "d"');
    expect(fts("conf*")).toBe('"conf"*');
    expect(toMatchExpression(parseQuery("conf*"), { prefix: false })).toBe('"conf"');
  });

  it("drops operators without a left operand, dangling ones and lowercase keywords stay words", () => {
    expect(fts("NOT foo")).toBe('"foo"');
    expect(fts("OR AND foo OR")).toBe('"foo"');
    expect(fts("foo OR NOT bar")).toBe('"foo" NOT "bar"');
    expect(fts("cats and dogs")).toBe('"cats" "and" "dogs"');
  });

  it("turns hostile input into plain terms or nothing", () => {
    for (const q of ['"', "*", "-", ":", "(((", ")", "''", '"""', "^", "()", "AND", "NOT NOT"]) {
      expect(parseQuery(q).groups).toEqual([]);
    }
    expect(fts('unbalanced "quote here')).toBe('"unbalanced" "quote" "here"');
    expect(fts("'; DROP TABLE messages; --")).toBe('"DROP" "TABLE" "messages"');
    expect(fts('say "it""s"')).toBe('"say" "it" "s"');
  });

  it("caps length and term count, and removes lone surrogates and control characters", () => {
    const long = parseQuery("x ".repeat(10_000));
    expect(long.groups.flat().length).toBeLessThanOrEqual(32);
    const huge = parseQuery(`${"a".repeat(MAX_SEARCH_QUERY_CHARS - 1)}😀b`);
    expect(huge.groups.flat()[0]?.text).toBe("a".repeat(MAX_SEARCH_QUERY_CHARS - 1));
    expect(fts("a\u0000b \uD800c")).toBe('"a" "b" "c"');
  });

  it("detects CJK", () => {
    expect(hasCjk(parseQuery("東京"))).toBe(true);
    expect(hasCjk(parseQuery("ひらがな"))).toBe(true);
    expect(hasCjk(parseQuery("한국어"))).toBe(true);
    expect(hasCjk(parseQuery("hello"))).toBe(false);
  });
});

describe("router", () => {
  const base = {
    roles: undefined,
    substring: false,
    baseUsable: true,
    trigramUsable: true,
    backfill: undefined,
  };
  const route = (q: string, extra: Partial<Parameters<typeof chooseRoute>[0]> = {}) =>
    chooseRoute({ ...base, query: parseQuery(q), ...extra }).route;

  it("routes words to fts, CJK/substring to trigram (≥ 3 chars) or LIKE", () => {
    expect(route("hello")).toBe("fts");
    expect(route("東京都")).toBe("trigram");
    expect(route("東京")).toBe("like");
    expect(route("ell", { substring: true })).toBe("trigram");
    expect(route("el", { substring: true })).toBe("like");
    expect(route("東京都", { trigramUsable: false })).toBe("like");
  });

  it("a tool-role filter or an untrusted index goes to LIKE; a backfill adds a top-up", () => {
    expect(route("hello", { roles: ["tool"] })).toBe("like");
    expect(route("hello", { roles: ["assistant", "tool"] })).toBe("like");
    expect(route("hello", { roles: ["assistant"] })).toBe("fts");
    expect(route("hello", { baseUsable: false })).toBe("like");
    const plan = chooseRoute({
      ...base,
      query: parseQuery("hello"),
      backfill: { highWater: 100, progress: 40 },
    });
    expect(plan).toMatchObject({
      route: "fts+like",
      index: "base",
      topUp: { after: 40, upTo: 100, nonToolOnly: false },
    });
    expect(route("hello", { backfill: { highWater: 100, progress: 100 } })).toBe("fts");
  });
});

describe("LIKE helpers", () => {
  it("escapes wildcards", () => {
    expect(likePattern("100%_done\\")).toBe("%100\\%\\_done\\\\%");
  });

  it("marks every match, ASCII case-insensitively, and merges overlaps", () => {
    expect(markMatches("Hello hello HELLO", ["hello"])).toBe("«Hello» «hello» «HELLO»");
    expect(markMatches("abcd", ["ab", "bc"])).toBe("«abc»d");
    expect(likeSnippet("middle part", 5, 50, ["part"])).toBe("…middle «part»…");
    expect(likeSnippet("whole", 1, 5, ["whole"])).toBe("«whole»");
  });
});
