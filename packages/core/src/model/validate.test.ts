import assert from "node:assert/strict";
import { describe, test } from "vitest";
import { MAX_JSON_LEVELS } from "../constants.js";
import { InvalidInputError } from "../errors.js";
import { cleanJson, replaceLoneSurrogates, wellFormed } from "./validate.js";

// Every text the store takes passes `wellFormed`: the engine's own check where it has one, the
// regular expression elsewhere. Both must store the same characters.
describe("wellFormed", () => {
  const cases: Array<[string, string]> = [
    ["", ""],
    ["plain ascii", "plain ascii"],
    ["latin-1 é ü ß", "latin-1 é ü ß"],
    ["pair 😀 kept", "pair 😀 kept"],
    ["\uD800", "\uFFFD"],
    ["\uDC00", "\uFFFD"],
    ["end high \uD83D", "end high \uFFFD"],
    ["\uDE00 start low", "\uFFFD start low"],
    ["reversed \uDE00\uD83D pair", "reversed \uFFFD\uFFFD pair"],
    ["two highs \uD83D\uD83D\uDE00", "two highs \uFFFD😀"],
    ["two lows \uD83D\uDE00\uDE00", "two lows 😀\uFFFD"],
    ["mixed 中文 \uD800 and 😀\uDC00", "mixed 中文 \uFFFD and 😀\uFFFD"],
  ];

  test("replaces each lone surrogate with U+FFFD and keeps everything else", () => {
    for (const [input, expected] of cases) {
      assert.equal(wellFormed(input), expected, JSON.stringify(input));
      assert.equal(replaceLoneSurrogates(input), expected, JSON.stringify(input));
    }
  });

  test("the regular expression and the engine's check agree on long mixed text", () => {
    const pieces = ["a", "é", "中", "😀", "\uD800", "\uDC00", "\uD83D", "\uDE00", " "];
    let seed = 7;
    for (let round = 0; round < 200; round++) {
      let text = "";
      for (let i = 0; i < 64; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        text += pieces[seed % pieces.length];
      }
      assert.equal(wellFormed(text), replaceLoneSurrogates(text), JSON.stringify(text));
    }
  });

  test("text that is already well formed comes back as the same string", () => {
    const text = `${"x".repeat(4096)} 😀`;
    assert.equal(wellFormed(text), text);
  });
});

describe("cleanJson", () => {
  /** `levels` arrays (or objects) one inside the other, the innermost holding `bottom` (or empty). */
  const nested = (levels: number, wrap: (inner?: unknown) => unknown, bottom?: unknown): unknown => {
    let value = wrap(bottom);
    for (let i = 1; i < levels; i++) value = wrap(value);
    return value;
  };
  const inArray = (inner?: unknown) => (inner === undefined ? [] : [inner]);
  const inObject = (inner?: unknown) => (inner === undefined ? {} : { a: inner });

  test(`takes ${MAX_JSON_LEVELS} levels of arrays or objects and refuses one more`, () => {
    for (const wrap of [inArray, inObject]) {
      for (const bottom of [undefined, "text", 5]) {
        const deepest = nested(MAX_JSON_LEVELS, wrap, bottom);
        assert.equal(JSON.stringify(cleanJson(deepest, "value")), JSON.stringify(deepest));
        assert.throws(
          () => cleanJson(nested(MAX_JSON_LEVELS + 1, wrap, bottom), "value"),
          (error: unknown) =>
            error instanceof InvalidInputError && /nested more than 64 levels deep/.test(error.message),
          `${JSON.stringify(nested(1, wrap, bottom))} at ${MAX_JSON_LEVELS + 1} levels`,
        );
      }
    }
  });
});
