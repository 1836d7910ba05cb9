/**
 * The runtime names the built @sessiondb/formats exports, pinned: a new export is a decision
 * (add it here, and to the README where users meet it). Turbo builds before testing.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";

const DIST = new URL("../dist/index.js", import.meta.url);

const NAMES = [
  // shapes, one module each
  "AI_SDK_FORMAT",
  "mapUIMessage",
  "toolRowKey",
  "uiMessageMapper",
  "uiMessageOf",
  "CLAUDE_CODE_FORMAT",
  "ClaudeCodeLines",
  "childSessionId",
  "claudeCode",
  "codex",
  "hermes",
  "OPENCODE_FORMAT",
  "OpencodeMessages",
  "opencode",
  "OPENAI_AGENTS_FORMAT",
  "OpenAIItems",
  "openaiAgentsMapper",
  // the importer and its prices
  "importFrom",
  "isDatabaseFormat",
  "lineFormats",
  "databaseFormats",
  "ESTIMATED",
  "PRICES_AS_OF",
  "estimateUsage",
  "priceOf",
  // one body on a sync or async store, for the bindings
  "atomically",
  "runOn",
  "storeOption",
];

describe.skipIf(!existsSync(DIST))("exported names (needs npm run build)", () => {
  it("exactly the decided list", async () => {
    expect(Object.keys(await import(DIST.href)).sort()).toEqual([...NAMES].sort());
  });
});
