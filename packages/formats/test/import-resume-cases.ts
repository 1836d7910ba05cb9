/**
 * A re-import reads what is new only: a Claude Code transcript and a Codex rollout imported,
 * appended to (the half-written line finished, a repeat of a response's usage, a tool result
 * whose call came in the first run, cumulative token totals), imported again. The second run
 * feeds the mapper the new lines only (counted through a wrapper of the real mapper), stores
 * exactly the new rows, counts no usage twice, and leaves the store as one whole import of the
 * final file does. A rewritten file, a smaller one and a cursor whose saved state is not one the
 * mapper reads are read from the first line. Written once for vitest, bun test and deno test.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Json, Store } from "@sessiondb/core";
import { claudeCode, codex, importFrom, type LineFormat } from "../src/index.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;

/** The real mapper of `format`, with the positions of the lines it is fed recorded. */
function counting(format: LineFormat): { format: LineFormat; fed: number[] } {
  const fed: number[] = [];
  const wrapped: LineFormat = {
    ...format,
    mapper(relativePath) {
      const mapper = format.mapper(relativePath);
      return {
        map: (item, position) => {
          fed.push(position);
          return mapper.map(item, position);
        },
        save: () => (mapper.save as () => Json)(),
        restore: (state) => (mapper.restore as (s: Json) => void)(state),
      };
    },
  };
  return { format: wrapped, fed };
}

const SESSION = "5d1e0c2a-0b7e-4f1a-9a3c-2b4d6e8f0a1c";
const at = (s: number) => `2026-05-02T08:00:${String(s).padStart(2, "0")}.000Z`;
const base = (uuid: number, s: number) => ({
  uuid: `c0000000-0000-4000-8000-${String(uuid).padStart(12, "0")}`,
  sessionId: SESSION,
  cwd: "/srv/ünï",
  version: "2.1.3",
  timestamp: at(s),
});
const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: 100,
  cache_read_input_tokens: 1000,
});
/** One content block of response `n` (its lines repeat its usage, as Claude Code writes them). */
const reply = (uuid: number, n: number, block: unknown, u: unknown) =>
  `${JSON.stringify({
    ...base(uuid, uuid),
    type: "assistant",
    requestId: `req_${n}`,
    message: {
      id: `msg_${n}`,
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [block],
      usage: u,
    },
  })}\n`;
const user = (uuid: number, content: unknown) =>
  `${JSON.stringify({ ...base(uuid, uuid), type: "user", message: { role: "user", content } })}\n`;

const FIRST =
  user(1, "Count the lines of README.md, bitte 🙂") +
  reply(2, 1, { type: "thinking", thinking: "wc will do" }, usage(10, 50)) +
  reply(
    3,
    1,
    { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "wc -l README.md" } },
    usage(10, 50),
  ) +
  `${JSON.stringify({ type: "custom-title", customTitle: "Line count", sessionId: SESSION })}\n`;
/** The last block of response 1, its line written in two parts: the first run sees half. */
const HALF = reply(4, 1, { type: "text", text: "Running it." }, usage(10, 50));
const LATER =
  user(5, [{ type: "tool_result", tool_use_id: "toolu_1", content: "42 README.md" }]) +
  reply(6, 2, { type: "text", text: "README.md has 42 lines." }, usage(20, 30)) +
  `${JSON.stringify({ type: "summary", summary: "A generated summary", leafUuid: "x" })}\n`;

/** Usage per model, cost left out (estimated from the price table either way). */
const tokens = (store: Store, id: string) =>
  store
    .getUsage(id)
    .map((u) => [u.model, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.callCount]);
/** Every row as the CLI reads it back. */
const rows = (store: Store, id: string) =>
  store
    .getMessages(id, { includeInactive: true })
    .map((m) => [m.externalId, m.role, m.content, m.toolName, m.toolCallId, m.active]);

export function importResumeCases(
  describe: Suite,
  it: Test,
  runtime: string,
  open: (path: string) => Store,
): void {
  describe(`importFrom re-reads only what is new (${runtime})`, () => {
    it("goes on after a Claude Code file's last complete line with the mapper's state", async () => {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-resume-"));
      const file = join(dir, "projects", "-srv-app", `${SESSION}.jsonl`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, FIRST + HALF.slice(0, 40));
      const store = open(join(dir, "s.db"));
      const whole = open(join(dir, "whole.db"));
      try {
        const first = counting(claudeCode);
        const one = await importFrom(store, first.format, [join(dir, "projects")]);
        assert.deepEqual(first.fed, [1, 2, 3, 4]);
        assert.equal(one.messages, 4);
        assert.equal(one.partial, 1);

        appendFileSync(file, HALF.slice(40) + LATER);
        const second = counting(claudeCode);
        const two = await importFrom(store, second.format, [join(dir, "projects")]);
        assert.deepEqual(second.fed, [5, 6, 7, 8], "only the lines after the last complete one");
        assert.deepEqual(two.files, { total: 1, read: 1, unchanged: 0, resumed: 1 });
        assert.equal(two.messages, 4, "the new rows, each once");
        assert.deepEqual(two.sessions, { created: 0, grown: 1, linked: 0 });
        assert.equal(two.partial, 0);
        // Response 1's usage came in the first run: its third line repeats it and adds nothing.
        assert.deepEqual(tokens(store, SESSION), [["claude-sonnet-4-5-20250929", 30, 80, 2000, 200, 2]]);
        const result = store.getMessages(SESSION).find((m) => m.role === "tool");
        assert.equal(result?.toolName, "Bash", "the call's name, known from the first run");
        assert.equal(store.getSession(SESSION)?.title, "Line count", "the title the user set still wins");

        await importFrom(whole, claudeCode, [join(dir, "projects")]);
        assert.deepEqual(rows(store, SESSION), rows(whole, SESSION), "the same rows as one whole import");
        assert.deepEqual(tokens(store, SESSION), tokens(whole, SESSION));

        const third = counting(claudeCode);
        const three = await importFrom(store, third.format, [join(dir, "projects")]);
        assert.deepEqual(third.fed, [], "an unchanged file is skipped on a stat");
        assert.deepEqual(three.files, { total: 1, read: 0, unchanged: 1, resumed: 0 });
      } finally {
        store.close();
        whole.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("reads a rewritten file, a smaller one and one whose saved state is unreadable from line 1", async () => {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-resume-"));
      const root = join(dir, "projects");
      const file = join(root, "-srv-app", `${SESSION}.jsonl`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, FIRST + HALF);
      const store = open(join(dir, "s.db"));
      try {
        await importFrom(store, claudeCode, [root]);
        const again = async () => {
          const run = counting(claudeCode);
          const result = await importFrom(store, run.format, [root]);
          return { fed: run.fed, resumed: result.files.resumed, messages: result.messages };
        };
        // The last line the cursor knows is another now (same length, one letter changed).
        writeFileSync(file, FIRST + HALF.replace("Running it.", "Running it!") + LATER);
        assert.deepEqual(await again(), { fed: [1, 2, 3, 4, 5, 6, 7, 8], resumed: 0, messages: 3 });
        // Smaller than what was read.
        writeFileSync(file, FIRST);
        assert.deepEqual(await again(), { fed: [1, 2, 3, 4], resumed: 0, messages: 0 });
        // A cursor whose state someone edited: the mapper cannot take it, the file is read whole.
        const session = store.getSession(SESSION);
        const meta = session?.metadata as { [key: string]: Json };
        const cursor = meta.sessiondbImport as { [key: string]: Json };
        assert.notEqual(cursor.state, null, "the cursor keeps the mapper's state");
        store.updateSession(SESSION, {
          metadata: { ...meta, sessiondbImport: { ...cursor, state: { usage: 7 } } },
        });
        appendFileSync(file, HALF);
        assert.deepEqual(await again(), { fed: [1, 2, 3, 4, 5], resumed: 0, messages: 0 });
        appendFileSync(file, LATER);
        assert.deepEqual(await again(), { fed: [6, 7, 8], resumed: 1, messages: 0 });
        assert.deepEqual(tokens(store, SESSION), [["claude-sonnet-4-5-20250929", 30, 80, 2000, 200, 2]]);
        assert.equal(readFileSync(file, "utf8"), FIRST + HALF + LATER, "the source is only read");
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("goes on after a Codex rollout with its token totals and tool names", async () => {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-resume-"));
      const id = "0195a1b2-bbbb-7e5f-8a9b-0c1d2e3f4a60";
      const root = join(dir, "sessions");
      const file = join(root, "2026/05/02", `rollout-2026-05-02T08-00-00-${id}.jsonl`);
      mkdirSync(dirname(file), { recursive: true });
      const line = (s: number, type: string, payload: unknown) =>
        `${JSON.stringify({ timestamp: at(s), type, payload })}\n`;
      const totals = (input: number, cached: number, output: number) =>
        line(9, "event_msg", {
          type: "token_count",
          info: {
            total_token_usage: {
              input_tokens: input,
              cached_input_tokens: cached,
              output_tokens: output,
              reasoning_output_tokens: 0,
            },
          },
        });
      writeFileSync(
        file,
        line(0, "session_meta", { id, timestamp: at(0), cwd: "/srv/app", model_provider: "openai" }) +
          line(1, "turn_context", { model: "gpt-5-codex", cwd: "/srv/app" }) +
          line(2, "response_item", { type: "function_call", call_id: "c1", name: "shell", arguments: "{}" }) +
          totals(1000, 400, 100),
      );
      const store = open(join(dir, "s.db"));
      const whole = open(join(dir, "whole.db"));
      try {
        await importFrom(store, codex, [root]);
        appendFileSync(
          file,
          line(3, "response_item", { type: "function_call_output", call_id: "c1", output: "ok" }) +
            totals(1000, 400, 100) +
            totals(1500, 600, 180),
        );
        const second = counting(codex);
        const two = await importFrom(store, second.format, [root]);
        assert.deepEqual(second.fed, [5, 6, 7]);
        assert.equal(two.files.resumed, 1);
        assert.equal(two.messages, 3);
        // The totals' last values, once: 1500 input of which 600 cached, 180 output.
        assert.deepEqual(tokens(store, id), [["gpt-5-codex", 900, 180, 600, 0, 2]]);
        assert.equal(store.getMessages(id).find((m) => m.role === "tool")?.toolName, "shell");
        await importFrom(whole, codex, [root]);
        assert.deepEqual(rows(store, id), rows(whole, id));
        assert.deepEqual(tokens(store, id), tokens(whole, id));
      } finally {
        store.close();
        whole.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
