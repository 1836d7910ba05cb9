/**
 * Display width without `string-width` at run time: the CLI's own measure (src/width.ts) agrees
 * with that package, kept here as an independent reference, on the text a transcript holds — CJK,
 * emoji of every kind, combining and spacing marks, zero-width characters, ANSI colours. And the
 * Unicode machinery it needs is made only for text that is not plain ASCII: a command whose output
 * is ASCII creates no `Intl.Segmenter` (15–30 ms of ICU data on Node).
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { cutToWidth, displayWidth, wrapLine } from "../src/width.js";
import { CLI, tempDir, withStore } from "./helpers.js";

const SAMPLES = [
  "plain ascii, 42 columns of it for a table",
  "修复数据库锁定问题并添加测试用例以及文档更新 🚀🚀 emoji 世界",
  "数据库连接",
  "こんにちは、カタカナ",
  "한국어 텍스트",
  "\u1100\u1161\u11a8", // conjoining Hangul jamo: one syllable
  "ｶﾞｷﾞ halfwidth katakana with voiced marks",
  "Ｆｕｌｌｗｉｄｔｈ",
  "🚀",
  "❤️", // a text pictograph made emoji by U+FE0F
  "❤", // the same without it: text
  "☺",
  "©",
  "™",
  "1️⃣",
  "#️⃣",
  "🇯🇵🇫🇷",
  "👩‍💻",
  "👨‍👩‍👧‍👦",
  "👍🏽",
  "e\u0301 combining acute",
  "कि हिन्दी", // Devanagari: a spacing vowel sign
  "ภาษาไทย", // Thai: non-spacing marks
  "zero\u200bwidth\u200djoiner\ufeff",
  "½ ± Ω ambiguous",
  "\x1b[1mbold\x1b[0m and \x1b[1;33myellow\x1b[0m",
  "تجربة العربية",
  "Ελληνικά и кириллица",
];

describe("display width", () => {
  it.each(SAMPLES)("%s: as string-width measures it", (text) => {
    expect(displayWidth(text)).toBe(stringWidth(text));
  });

  it("cuts and wraps by it", () => {
    const title = SAMPLES[1] as string;
    const cut = cutToWidth(title, 21);
    expect(cut.endsWith("…")).toBe(true);
    expect(stringWidth(cut)).toBeLessThanOrEqual(21);
    expect(stringWidth(cut)).toBeGreaterThanOrEqual(19);
    for (const line of wrapLine(`${title} ${title}`, 17)) expect(stringWidth(line)).toBeLessThanOrEqual(17);
  });
});

describe("the Unicode machinery is made on first need", () => {
  const preload = new URL("./fixtures/count-segmenters.mjs", import.meta.url).href;
  const run = (args: string[]) =>
    spawnSync(process.execPath, ["--import", preload, CLI, ...args], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", COLUMNS: "100" },
    });

  it("a table of ASCII text creates no Intl.Segmenter; one with a CJK title does", () => {
    const file = path.join(tempDir(), "state.db");
    withStore(file, (store) => store.createSession({ id: "plain", source: "cli", title: "ascii only" }));
    const plain = run(["--db", file, "sessions", "list"]);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toContain("ascii only");
    expect(run(["--help"]).stderr).not.toContain("Intl.Segmenter created");
    expect(plain.stderr).not.toContain("Intl.Segmenter created");
    withStore(file, (store) => store.createSession({ id: "wide", source: "cli", title: "数据库连接 🚀" }));
    const wide = run(["--db", file, "sessions", "list"]);
    expect(wide.status, wide.stderr).toBe(0);
    expect(wide.stdout).toContain("数据库连接 🚀");
    expect(wide.stderr).toContain("Intl.Segmenter created");
  });
});
