import { describe, expect, it } from "vitest";
import { MAX_SEARCH_QUERY_CHARS } from "../constants.js";
import { InvalidInputError } from "../errors.js";
import {
  LIKE_WINDOW_BEFORE_BYTES,
  LIKE_WINDOW_BYTES,
  MAX_SEARCH_WORDS,
  TRIGRAMS_PER_TERM,
} from "./constants.js";
import { markMatches, windowSnippet } from "./like-snippet.js";
import {
  checkWordBudget,
  hasCjk,
  parseQuery,
  selectTrigrams,
  toMatchExpression,
  toTrigramCandidates,
} from "./query.js";
import { chooseRoute } from "./route.js";
import { termsSql } from "./search-sql.js";

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
    trigramReadsPastNul: true,
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
    // An old trigram tokenizer stops at a NUL: its index may lack text a LIKE scan finds.
    expect(route("ell", { substring: true, trigramReadsPastNul: false })).toBe("like");
    expect(route("東京都", { trigramReadsPastNul: false })).toBe("like");
    expect(route("hello", { trigramReadsPastNul: false })).toBe("fts");
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
      topUp: { after: 40, upTo: 100 },
    });
    expect(route("hello", { backfill: { highWater: 100, progress: 100 } })).toBe("fts");
  });
});

describe("bounded index queries", () => {
  it("drops repeated terms within a group", () => {
    expect(fts("a a a b a")).toBe('"a" "b"');
    expect(fts("a a* a NOT a")).toBe('"a" "a"* NOT "a"');
    expect(fts(`${"zz ".repeat(300)}`)).toBe('"zz"');
  });

  it("picks a few distinct trigrams, the least common first, whatever the term's length", () => {
    expect(selectTrigrams("z".repeat(1000))).toEqual(["zzz"]);
    expect(selectTrigrams("ZZzz")).toEqual(["ZZz"]);
    expect(selectTrigrams("nnection")).toEqual(["nec", "ect", "cti", "nne"]);
    expect(selectTrigrams("x9-42.tar.gz")).toHaveLength(TRIGRAMS_PER_TERM);
    expect(selectTrigrams("x9-42.tar.gz")).toContain("9-4");
    expect(selectTrigrams("東京都庁")).toEqual(["東京都", "京都庁"]);
    expect(selectTrigrams("😀😀😀")).toEqual(["😀😀😀"]);
  });

  it("asks the trigram index for the AND of each group's positive terms' trigrams", () => {
    const q = (text: string) => toTrigramCandidates(parseQuery(text));
    expect(q("abcd")).toBe('"abc" "bcd"');
    expect(q("abcd NOT xyzw")).toBe('"abc" "bcd"');
    expect(q("abcd OR efgh")).toBe('"abc" "bcd" OR "efg" "fgh"');
    expect(q("abcd bcde")).toBe('"abc" "bcd" "cde"');
  });

  it("turns the query into an exact test over the given columns", () => {
    const { sql, params } = termsSql(parseQuery("ab NOT cd OR ef"), ["content", "tool_name"]);
    expect(params).toEqual(["ab", "ab", "cd", "cd", "ef", "ef"]);
    expect(sql.match(/instr\(lower\(ifnull\(m\.content, ''\)\), lower\(\?\)\) > 0/g)).toHaveLength(3);
    expect(sql).toContain("AND NOT (");
    expect(sql).not.toMatch(/LIKE/);
    // Nothing to fold in digits or CJK: the bytes are compared as they are.
    const plain = termsSql(parseQuery("404 東京"), ["content"]).sql;
    expect(plain).toBe("(((instr(ifnull(m.content, ''), ?) > 0) AND (instr(ifnull(m.content, ''), ?) > 0)))");
  });

  it("refuses a word query with more than MAX_SEARCH_WORDS words", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
    expect(() => checkWordBudget(parseQuery(`"${words(MAX_SEARCH_WORDS)}"`))).not.toThrow();
    expect(() => checkWordBudget(parseQuery(`"${words(MAX_SEARCH_WORDS + 1)}"`))).toThrow(InvalidInputError);
    expect(() => checkWordBudget(parseQuery(`"${words(40)}" "${words(40)} x"`))).toThrow(/81 words/);
    // Repeated words are dropped before they are counted; CJK runs are one word each.
    expect(() => checkWordBudget(parseQuery("a ".repeat(500)))).not.toThrow();
    expect(() => checkWordBudget(parseQuery("東京都".repeat(300)))).not.toThrow();
  });
});

describe("LIKE helpers", () => {
  it("marks every match, ASCII case-insensitively, and merges overlaps", () => {
    expect(markMatches("Hello hello HELLO", ["hello"])).toBe("«Hello» «hello» «HELLO»");
    expect(markMatches("abcd", ["ab", "bc"])).toBe("«abc»d");
  });

  /** The byte window likeWindowsSql cuts around the first match of `term` in `text`. */
  const cut = (text: string, term: string) => {
    const bytes = new TextEncoder().encode(text);
    const match = Buffer.from(bytes).indexOf(Buffer.from(term)) + 1;
    const start = Math.max(1, match - LIKE_WINDOW_BEFORE_BYTES);
    const window = bytes.subarray(start - 1, start - 1 + LIKE_WINDOW_BYTES);
    return windowSnippet({ bytes: window, start, match, total: bytes.length }, [term]);
  };

  it("cuts a byte window into whole characters around the match", () => {
    expect(cut("whole", "whole")).toBe("«whole»");
    expect(cut("a short middle part here", "part")).toBe("a short middle «part» here");
    expect(cut(`${"x".repeat(300)} part ${"y".repeat(300)}`, "part")).toBe(
      `…${"x".repeat(39)} «part» ${"y".repeat(75)}…`,
    );
    // Three-byte characters: the byte window cuts inside one at each edge.
    const cjk = cut(`${"東".repeat(100)}京都${"西".repeat(100)}`, "京都");
    expect(cjk).toBe(`…${"東".repeat(40)}«京都»${"西".repeat(78)}…`);
    const emoji = cut(`${"😀".repeat(60)}find${"🎉".repeat(60)}`, "find");
    expect(emoji).toBe(`…${"😀".repeat(40)}«find»${"🎉".repeat(60)}`);
    expect(emoji).not.toContain("\uFFFD");
  });

  it("sees text after a NUL character", () => {
    expect(cut("nulA\u0000nulB tail", "nulB")).toBe("nulA\u0000«nulB» tail");
  });
});
