/**
 * The CLI end to end: every test runs the built binary (`node dist/cli.js`) as a subprocess
 * against real store files built from the seeded bench corpus. No mocks.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { CorpusSummary } from "@sessiondb/bench/corpus";
import { betterSqlite3Driver } from "@sessiondb/node";
import { beforeAll, describe, expect, it } from "vitest";
import {
  cli,
  corpusStore,
  expectOneLineError,
  holdLock,
  json,
  spawnCli,
  tempDir,
  withStore,
} from "./helpers.js";

const COMMANDS = [
  "stats",
  "sessions list",
  "sessions show",
  "search",
  "export",
  "import",
  "doctor",
  "fts status",
  "fts rebuild",
  "fts backfill",
  "fts optimize",
  "check",
];
const READ_COMMANDS = ["stats", "sessions list", "sessions show", "search", "doctor", "fts status", "check"];

let dir: string;
let db: string;
let corpus: CorpusSummary;

/** A copy of the shared corpus store, for tests that change it. */
function copyOfCorpus(name: string): string {
  const target = path.join(dir, name);
  for (const suffix of ["", "-wal"])
    if (fs.existsSync(db + suffix)) fs.copyFileSync(db + suffix, target + suffix);
  return target;
}

beforeAll(() => {
  dir = tempDir();
  db = path.join(dir, "corpus.db");
  corpus = corpusStore(db, 2000, 11);
});

describe("usage", () => {
  it.each(COMMANDS)("%s --help prints usage and exits 0", (name) => {
    const r = cli([...name.split(" "), "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: sessiondb [--db PATH] ${name}`);
    expect(r.stdout).toContain("--db PATH");
  });

  it.each(READ_COMMANDS)("%s documents --json", (name) => {
    expect(cli([...name.split(" "), "--help"]).stdout).toContain("--json");
  });

  it("lists every command in the main help, and `help CMD` works", () => {
    const r = cli(["--help"]);
    expect(r.code).toBe(0);
    for (const name of COMMANDS) expect(r.stdout).toContain(name);
    expect(cli(["help", "fts", "backfill"]).stdout).toContain("Usage: sessiondb [--db PATH] fts backfill");
    expect(cli(["fts", "--help"]).stdout).toContain("fts rebuild");
  });

  it.each([
    [["frobnicate"], "unknown command"],
    [["stats", "--frob"], "Unknown option"],
    [["sessions"], "needs a subcommand"],
    [["sessions", "show"], "needs ID"],
    [["stats", "extra"], "takes no arguments"],
    [["sessions", "list", "--limit", "ten"], "--limit expects a non-negative integer"],
    [["search", "x", "--role", "robot"], "--role must be one of"],
    [["search", "x", "--sort", "random"], "--sort must be"],
    [[], "no command given"],
  ])("%j is a usage error: exit 2, one line on stderr", (args, text) => {
    const r = cli(["--db", path.join(dir, "whatever.db"), ...args]);
    expect(r.code, r.stderr).toBe(2);
    const last = r.stderr.trimEnd().split("\n").at(-1) ?? "";
    expect(last).toContain(text);
    expect(last).toMatch(/^sessiondb: .*\[USAGE\]$/);
  });

  it("--json errors are one JSON line on stderr", () => {
    const r = cli(["--db", path.join(dir, "nope.db"), "stats", "--json"]);
    expect(r.code).toBe(3);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: "STORE_MISSING", exit: 3 } });
  });

  it.each([[["--json"]], [["sessions", "--json"]]])(
    "%j: the JSON error line alone on stderr, without the help text",
    (args) => {
      const r = cli(args);
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
      expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: "USAGE", exit: 2 } });
      expect(r.stdout).toBe("");
    },
  );

  it.each([
    [["help", "nope"], "nope"],
    [["help", "sessions", "nope"], "sessions nope"],
    [["nope", "--help"], "nope"],
    [["--help", "nope"], "nope"],
  ])("%j: a usage error naming the unknown command, not the general help", (args, name) => {
    const r = cli(args);
    expect(r.code, r.stdout).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(new RegExp(`^sessiondb: unknown command "${name}"; .*\\[USAGE\\]\n$`));
  });

  it.each([
    [["--db", "/tmp/x.db", "help", "stats"], /^Usage: sessiondb \[--db PATH\] stats /],
    [["help", "--db", "/tmp/x.db", "sessions", "list"], /^Usage: sessiondb \[--db PATH\] sessions list /],
    [["stats", "--json", "--help"], /^Usage: sessiondb \[--db PATH\] stats /],
    [["--json", "--help"], /^sessiondb \S+ — /],
    [["help", "stats", "--json"], /^Usage: sessiondb \[--db PATH\] stats /],
    [["export", "--json", "--help"], /^Usage: sessiondb \[--db PATH\] export /],
    [["search", "--bogus", "-h"], /^Usage: sessiondb \[--db PATH\] search /],
  ])("%j: help is text on stdout, exit 0, whatever else is on the line", (args, start) => {
    const r = cli(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(start);
    expect(r.stderr).toBe("");
  });

  it("export --json says why there is none and what export writes", () => {
    const r = cli(["export", "--json"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({
      error: {
        code: "USAGE",
        exit: 2,
        message: expect.stringMatching(/^export has no --json: .*JSON Lines/),
      },
    });
    expect(r.stdout).toBe("");
  });

  it("fts optimize --help describes the paced merge, not FTS5's one-statement 'optimize'", () => {
    const r = cli(["fts", "optimize", "--help"]);
    expect(r.stdout).toContain("paced merge steps");
    expect(r.stdout).not.toContain("(FTS5 'optimize')");
    expect(cli(["--help"]).stdout).toMatch(
      /fts optimize +compact the full-text index in short paced merge steps/,
    );
  });
});

describe("a missing store", () => {
  it.each([
    ["stats"],
    ["sessions", "list"],
    ["sessions", "show", "x"],
    ["search", "hello"],
    ["export"],
    ["doctor"],
    ["check"],
    ["fts", "status"],
    ["fts", "rebuild"],
    ["fts", "backfill"],
    ["fts", "optimize"],
  ])("%j exits 3 and creates nothing", (...args) => {
    const missing = path.join(dir, "missing", "state.db");
    fs.mkdirSync(path.dirname(missing), { recursive: true });
    const r = cli(["--db", missing, ...args]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^sessiondb: No store at .*state\.db.*\[STORE_MISSING\]\n$/);
    expect(fs.readdirSync(path.dirname(missing))).toEqual([]);
  });

  it("uses $SESSIONDB_PATH, and --db wins over it", () => {
    expect(cli(["stats", "--json"], { env: { SESSIONDB_PATH: db } }).code).toBe(0);
    expect(cli(["--db", path.join(dir, "nope.db"), "stats"], { env: { SESSIONDB_PATH: db } }).code).toBe(3);
  });

  it("defaults to ~/.sessiondb/state.db", () => {
    const home = tempDir();
    const r = cli(["stats"], { env: { HOME: home } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(path.join(home, ".sessiondb", "state.db"));
    expect(fs.existsSync(path.join(home, ".sessiondb"))).toBe(false);
  });
});

describe("another application's database", () => {
  it("every command refuses it, import included, naming its tables and changing nothing", () => {
    const app = path.join(dir, "app.db");
    const conn = betterSqlite3Driver().open(app, { readOnly: false });
    conn.exec(
      "PRAGMA user_version = 42; CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://x')",
    );
    conn.close();
    const before = fs.readFileSync(app);
    const one = path.join(dir, "one.jsonl");
    fs.writeFileSync(one, cli(["--db", db, "export", "--session", "s000000b-0000001"]).stdout);
    expect(fs.statSync(one).size).toBeGreaterThan(0);
    for (const args of [["stats"], ["sessions", "list"], ["import", one], ["check"]]) {
      const r = cli(["--db", app, ...args]);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(6);
      expect(r.stderr).toMatch(
        /^sessiondb: .*another application's database.*\(moz_places\).*of its own.*\[STORE_OPEN_FAILED\]\n$/,
      );
      expect(r.stderr).not.toMatch(/No store|create it/);
      expect(fs.readFileSync(app).equals(before), `${args[0]} left the bytes alone`).toBe(true);
      expect(fs.readdirSync(dir).filter((name) => name.startsWith("app.db-"))).toEqual([]);
    }
  });
});

describe("read commands on a corpus store", () => {
  it("stats --json counts what the corpus wrote", () => {
    const r = cli(["--db", db, "stats", "--json"]);
    expect(r.code).toBe(0);
    const s = json(r);
    expect(s.sessions.total).toBe(corpus.sessions);
    expect(s.messages.total).toBe(corpus.messages);
    expect(s.messages.byRole).toEqual(corpus.byRole);
    expect(s.journalMode).toBe("wal");
    expect(s.fts).toEqual({ state: "ready", trigram: true });
    expect(s.sizeBytes.total).toBeGreaterThan(0);
  });

  it("stats prints a readable summary", () => {
    const r = cli(["--db", db, "stats"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sessions\s+\S+ \(0 archived\)$/m);
    expect(r.stdout).toMatch(/^fts\s+ready$/m);
  });

  it("sessions list: --json, --limit, --source", () => {
    const all = json(cli(["--db", db, "sessions", "list", "--json", "--limit", "100000"])).sessions;
    expect(all).toHaveLength(corpus.sessions);
    expect(json(cli(["--db", db, "sessions", "list", "--json", "--limit", "3"])).sessions).toHaveLength(3);
    const source = all[0].source;
    const some = json(
      cli(["--db", db, "sessions", "list", "--json", "--limit", "100000", "--source", source]),
    ).sessions;
    expect(some.length).toBe(all.filter((s: { source: string }) => s.source === source).length);
    const human = cli(["--db", db, "sessions", "list", "--limit", "2"]);
    expect(human.stdout.split("\n")[0]).toMatch(/^ID\s+SOURCE\s+STARTED\s+MSGS/);
  });

  it("sessions list --limit 0 says so, not 'past --offset 0'; past the end it names the offset", () => {
    const none = cli(["--db", db, "sessions", "list", "--limit", "0"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`0 of ${corpus.sessions} sessions (--limit 0)\n`);
    const past = cli(["--db", db, "sessions", "list", "--offset", String(corpus.sessions)]);
    expect(past.stdout).toBe(`no sessions past --offset ${corpus.sessions} (${corpus.sessions} sessions)\n`);
    // Further past the end, the count is still the store's, not the offset.
    const beyond = corpus.sessions + 7;
    const far = cli(["--db", db, "sessions", "list", "--offset", String(beyond)]);
    expect(far.stdout).toBe(`no sessions past --offset ${beyond} (${corpus.sessions} sessions)\n`);
    expect(json(cli(["--db", db, "sessions", "list", "--offset", String(beyond), "--json"])).total).toBe(
      corpus.sessions,
    );
  });

  it("a count larger than the largest exact integer is a usage error naming the flag; the largest is taken", () => {
    for (const args of [
      ["sessions", "list", "--limit", "99999999999999999999"],
      ["sessions", "list", "--offset", "9007199254740992"],
      ["search", "x", "--offset", "9007199254740993"],
    ]) {
      const r = cli(["--db", db, ...args]);
      expectOneLineError(r, 2, "USAGE");
      expect(r.stderr).toContain(`${args[2]} is at most 9007199254740991, got ${args[3]}`);
    }
    const largest = cli(["--db", db, "sessions", "list", "--limit", "9007199254740991", "--json"]);
    expect(largest.code, largest.stderr).toBe(0);
    expect(json(largest).total).toBe(corpus.sessions);
  });

  it("sessions show counts in the singular: 1 message, 1 tool call", () => {
    const file = path.join(dir, "one-call.db");
    withStore(file, (s) => {
      s.createSession({ id: "one", source: "cli" });
      s.appendMessage("one", {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }],
      });
    });
    const r = cli(["--db", file, "sessions", "show", "one"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(" · 1 message · 1 tool call\n");
  });

  it("sessions show: --json is complete, human output shortens tool output unless --full", () => {
    const token = corpus.tokens.find((t) => t.role === "tool" && !t.indexedByFts);
    expect(token).toBeDefined();
    const id = token?.sessionId as string;
    const shown = json(cli(["--db", db, "sessions", "show", id, "--json"]));
    expect(shown.session.id).toBe(id);
    const withToken = shown.messages.find((m: { id: number }) => m.id === token?.messageId);
    expect(JSON.stringify(withToken.content)).toContain(token?.token);
    const short = cli(["--db", db, "sessions", "show", id]);
    expect(short.code).toBe(0);
    expect(short.stdout).toContain("more characters (--full shows all)");
    expect(short.stdout).not.toContain(token?.token);
    const full = cli(["--db", db, "sessions", "show", id, "--full"]);
    expect(full.stdout).toContain(token?.token);
  });

  it("sessions show of an unknown id exits 7", () => {
    const r = cli(["--db", db, "sessions", "show", "no-such-session"]);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('no session "no-such-session"');
  });

  it("search finds each unique token exactly once, with the route", () => {
    const tokens = corpus.tokens.filter((t) => t.indexedByFts).slice(0, 5);
    expect(tokens.length).toBeGreaterThan(0);
    for (const t of tokens) {
      const r = json(cli(["--db", db, "search", t.token, "--json"]));
      expect(r.route).toBe("fts");
      expect(r.hits).toHaveLength(1);
      expect(r.hits[0]).toMatchObject({ messageId: t.messageId, sessionId: t.sessionId, role: t.role });
      expect(r.hits[0].snippet).toContain(`«${t.token}»`);
    }
  });

  it("search: tool role scans full content by LIKE; --substring uses trigram; human output names the route", () => {
    const deep = corpus.tokens.find((t) => !t.indexedByFts);
    expect(deep).toBeDefined();
    const tool = json(cli(["--db", db, "search", deep?.token as string, "--role", "tool", "--json"]));
    expect(tool.route).toBe("like");
    expect(tool.hits.map((h: { messageId: number }) => h.messageId)).toEqual([deep?.messageId]);
    const prose = corpus.tokens.find((t) => t.indexedByFts && t.role !== "tool");
    const piece = String(prose?.token).slice(-10);
    const sub = json(cli(["--db", db, "search", piece, "--substring", "--json"]));
    expect(sub.route).toBe("trigram");
    expect(sub.hits.map((h: { messageId: number }) => h.messageId)).toContain(prose?.messageId);
    const human = cli(["--db", db, "search", prose?.token as string]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^1 hit · route fts/);
    expect(human.stdout).toContain(`«${prose?.token}»`);
  });

  it("read commands never write: the file is byte-identical afterwards", () => {
    const copy = copyOfCorpus("readonly-check.db");
    const before = fs.readFileSync(copy);
    for (const args of [
      ["stats"],
      ["sessions", "list"],
      ["search", "error"],
      ["fts", "status"],
      ["export"],
    ]) {
      expect(cli(["--db", copy, ...args]).code).toBe(0);
    }
    expect(fs.readFileSync(copy).equals(before)).toBe(true);
  });
});

describe("export and import", () => {
  it("export → import into a new store → export again is byte-identical (corpus)", () => {
    const first = path.join(dir, "export-1.jsonl");
    expect(cli(["--db", db, "export", "--output", first]).code).toBe(0);
    const lines = fs.readFileSync(first, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(corpus.sessions + corpus.messages);
    const target = path.join(dir, "imported.db");
    const imp = cli(["--db", target, "import", first, "--json"]);
    expect(imp.code).toBe(0);
    expect(json(imp)).toMatchObject({
      sessions: { imported: corpus.sessions, failed: 0 },
      messages: corpus.messages,
      errors: [],
    });
    const second = cli(["--db", target, "export"]);
    expect(second.code).toBe(0);
    expect(Buffer.from(second.stdout).equals(fs.readFileSync(first))).toBe(true);
  });

  it("round-trips every field: parents, ended, archived, pinned, metadata, structured content, reasoning", () => {
    const src = path.join(dir, "fields.db");
    withStore(src, (s) => {
      s.createSession({
        id: "parent",
        source: "gateway",
        model: "m1",
        modelConfig: { t: 0.2 },
        title: "P",
        cwd: "/w",
        metadata: { a: [1, "x"] },
        startedAt: 1700000000.125,
      });
      s.createSession({ id: "child", source: "cli", parentSessionId: "parent", startedAt: 1700000001.3 });
      s.appendMessages("parent", [
        { role: "system", content: "be brief", timestamp: 1700000000.2 },
        {
          role: "user",
          content: [
            { type: "text", text: "look at this" },
            { type: "image_url", image_url: { url: "data:x" } },
          ],
          timestamp: 1700000000.3,
        },
        {
          role: "assistant",
          content: null,
          toolCalls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"p":"."}' } }],
          finishReason: "tool_calls",
          reasoning: "think",
          tokenCount: 12,
          timestamp: 1700000000.4,
        },
        {
          role: "tool",
          content: "a\nb\n",
          toolName: "ls",
          toolCallId: "c1",
          metadata: { exit: 0 },
          timestamp: 1700000000.5,
        },
        { role: "assistant", content: "done — ✓ 日本語", timestamp: 1700000000.6 },
      ]);
      s.appendMessage("child", { role: "developer", content: "", timestamp: 1700000001.4 });
      s.updateSession("parent", { archived: true, pinned: true });
      s.endSession("parent", "user_exit");
    });
    const first = cli(["--db", src, "export"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('"ended_at"');
    const file = path.join(dir, "fields.jsonl");
    fs.writeFileSync(file, first.stdout);
    const target = path.join(dir, "fields-imported.db");
    expect(cli(["--db", target, "import", file]).code).toBe(0);
    expect(cli(["--db", target, "export"]).stdout).toBe(first.stdout);
    const [a, b] = [src, target].map((f) => withStore(f, (s) => s.getSession("parent"), { readOnly: true }));
    expect(b).toEqual(a);
  });

  it("a child that comes before its parent in the file waits for it", () => {
    const file = path.join(dir, "order.jsonl");
    fs.writeFileSync(
      file,
      [
        '{"type":"session","id":"kid","source":"cli","parent_session_id":"mom","started_at":2}',
        '{"role":"user","content":"hi"}',
        '{"type":"session","id":"mom","source":"cli","started_at":1}',
      ].join("\n"),
    );
    const target = path.join(dir, "order.db");
    const r = cli(["--db", target, "import", file]);
    expect(r.code).toBe(0);
    expect(withStore(target, (s) => s.getSession("kid")?.parentSessionId, { readOnly: true })).toBe("mom");
  });

  it("bad lines: reported by line number, their sessions imported not at all, the rest imported; exit 8", () => {
    const file = path.join(dir, "bad.jsonl");
    fs.writeFileSync(
      file,
      [
        '{"type":"session","id":"good","source":"cli","started_at":1}', // 1
        '{"role":"user","content":"fine","timestamp":1}', // 2
        '{"type":"session","id":"broken-json","source":"cli","started_at":2}', // 3
        '{"role":"user","content":"ok"}', // 4
        '{"role":"assistant","content": oops}', // 5
        "", // 6
        '{"type":"session","id":"bad-role","source":"cli","started_at":3}', // 7
        '{"role":"wizard","content":"x"}', // 8
        '{"role":"user","content":"y","token_count":-1}', // 9
        '{"type":"session","id":"good2","source":"cli","started_at":4}', // 10
        '{"role":"user","content":"also fine","name":"n"}', // 11
        '{"type":"conversation"}', // 12
      ].join("\n"),
    );
    const target = path.join(dir, "bad.db");
    const r = cli(["--db", target, "import", file]);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^line 5: session "broken-json": not valid JSON/m);
    expect(r.stderr).toMatch(/^line 8: session "bad-role": "role" must be one of/m);
    expect(r.stderr).toMatch(/^line 9: session "bad-role": "token_count"/m);
    expect(r.stderr).toMatch(/^line 12: session "good2": unknown record type "conversation"/m);
    expect(r.stdout).toMatch(/^imported 1 session \(1 message\); 3 not imported because of bad lines$/m);
    const ids = withStore(target, (s) => s.listSessions({ includeArchived: true }).map((x) => x.id), {
      readOnly: true,
    });
    expect(ids).toEqual(["good"]);
    expect(withStore(target, (s) => s.messageCount(), { readOnly: true })).toBe(1);

    const asJson = json(cli(["--db", path.join(dir, "bad2.db"), "import", file, "--json"]));
    expect(asJson.errors.map((e: { line: number }) => e.line)).toEqual([5, 8, 9, 12]);
    expect(asJson.sessions).toMatchObject({ imported: 1, failed: 3 });
  });

  it("a message the library refuses (InvalidInputError) is reported by its line, and its session is rolled back", () => {
    const file = path.join(dir, "refused.jsonl");
    // A session id with a control character passes JSON parsing but not the store's validation.
    fs.writeFileSync(
      file,
      [
        '{"type":"session","id":"ok","source":"cli","started_at":1}',
        '{"role":"user","content":"x","timestamp":1}',
        `{"role":"user","content":"y","timestamp":2,"tool_call_id":"${"z".repeat(600)}"}`,
      ].join("\n"),
    );
    const target = path.join(dir, "refused.db");
    const r = cli(["--db", target, "import", file]);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^line 3: session "ok": Invalid messages\[1\]\.toolCallId/m);
    // Its only session rolled back, the store the import made holds none: no store is left.
    expect(fs.existsSync(target)).toBe(false);
  });

  it("re-running an import skips what is there; --dry-run writes nothing; stdin works", () => {
    const file = path.join(dir, "again.jsonl");
    fs.writeFileSync(
      file,
      cli(["--db", db, "export", "--session", corpus.tokens[0]?.sessionId as string]).stdout,
    );
    const target = path.join(dir, "again.db");
    expect(cli(["--db", target, "import", file, "--dry-run"]).code).toBe(0);
    expect(fs.existsSync(target)).toBe(false);
    expect(
      json(cli(["--db", target, "import", "-", "--json"], { input: fs.readFileSync(file, "utf8") })).sessions
        .imported,
    ).toBe(1);
    const again = json(cli(["--db", target, "import", file, "--json"]));
    expect(again.sessions).toMatchObject({ imported: 0, skipped: 1 });
  });

  it("export of an unknown session exits 7", () => {
    expect(cli(["--db", db, "export", "--session", "nope"]).code).toBe(7);
  });
});

describe("doctor and check", () => {
  it("doctor on a healthy store exits 0 and reports every check", () => {
    const r = cli(["--db", db, "doctor", "--json"]);
    expect(r.code).toBe(0);
    const d = json(r);
    expect(d.healthy).toBe(true);
    const checks = d.findings.map((f: { check: string }) => f.check);
    for (const c of [
      "sqlite",
      "wal-reset",
      "journal mode",
      "integrity_check",
      "fts",
      "admission lock",
      "permissions db",
    ])
      expect(checks).toContain(c);
    expect(cli(["--db", db, "doctor"]).stdout).toMatch(/healthy\n$/);
  });

  it("doctor: loose permissions → exit 9; a backfill in progress → exit 9 with progress", () => {
    const copy = copyOfCorpus("loose.db");
    fs.chmodSync(copy, 0o644);
    const loose = cli(["--db", copy, "doctor"]);
    expect(loose.code).toBe(9);
    expect(loose.stdout).toMatch(/warn\s+permissions db\s+.*mode 644/);
    fs.chmodSync(copy, 0o600);
    withStore(copy, (s) => {
      s.startFtsBackfill();
      s.ftsBackfillStep({ chunkRows: 100 });
    });
    const d = cli(["--db", copy, "doctor"]);
    expect(d.code).toBe(9);
    expect(d.stdout).toMatch(/warn\s+fts\s+backfilling \([\d,]+\/[\d,]+ rows indexed/);
  });

  it("check: sound store → 0; a corrupted page → 5 from check and doctor", () => {
    expect(cli(["--db", db, "check"]).code).toBe(0);
    const copy = copyOfCorpus("corrupt.db");
    const size = fs.statSync(copy).size;
    const fd = fs.openSync(copy, "r+");
    // Scribble over pages in the middle of the file (b-tree pages of messages and the index).
    const junk = Buffer.alloc(4096 * 4, 0x5a);
    fs.writeSync(fd, junk, 0, junk.length, Math.floor(size / 2 / 4096) * 4096);
    fs.closeSync(fd);
    const r = cli(["--db", copy, "check", "--json"]);
    expect(r.code).toBe(5);
    const doc = cli(["--db", copy, "doctor"]);
    expect(doc.code).toBe(5);
  });

  it("a store that cannot be opened: doctor exits as check and stats do (3, 6), not 9", () => {
    const empty = path.join(dir, "empty.db");
    fs.writeFileSync(empty, "");
    for (const command of ["doctor", "stats", "check"]) {
      const r = cli(["--db", empty, command]);
      expect(r.code, `${command}: ${r.stdout}${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(/^sessiondb: No store at .*\[STORE_MISSING\]\n$/);
    }
    // What an older sessiondb made: a column this build reads is missing (and so are the
    // triggers that name it).
    const older = copyOfCorpus("older.db");
    const raw = betterSqlite3Driver().open(older, { readOnly: false });
    raw.exec("DROP TRIGGER sessiondb_text_nul_sessions_ai; DROP TRIGGER sessiondb_text_nul_sessions_au");
    raw.exec("ALTER TABLE sessions DROP COLUMN cwd");
    raw.close();
    expect(cli(["--db", older, "check"]).code).toBe(6);
    const doc = cli(["--db", older, "doctor", "--json"]);
    expect(doc.code, doc.stderr).toBe(6);
    expect(json(doc).findings).toContainEqual(
      expect.objectContaining({
        check: "open",
        status: "fail",
        detail: expect.stringMatching(/^SCHEMA_OUTDATED: /),
      }),
    );
  });

  it("a store whose full-text index an earlier version built: check and doctor exit 6 and change nothing", () => {
    const older = copyOfCorpus("older-index.db");
    const raw = betterSqlite3Driver().open(older, { readOnly: false });
    // Layout 1's projection: tool rows cut by substr() on the TEXT.
    const layout1 = (sql: string) =>
      sql.replace(
        /CASE WHEN instr\(substr\(CAST\(([\w.]+) AS BLOB\), 1, \d+\), x'00'\) > 0 THEN CAST\(substr\(CAST\(\1 AS BLOB\), 1, (\d+)\) AS TEXT\) ELSE (substr\(\1, 1, \2\)) END/g,
        "$3",
      );
    const objects = raw
      .prepare(
        "SELECT type, name, sql FROM sqlite_master WHERE type IN ('view', 'trigger') AND name LIKE 'messages_fts%'",
      )
      .all()
      .filter((row) => layout1(String(row.sql)) !== String(row.sql));
    expect(objects.length).toBeGreaterThanOrEqual(4);
    for (const row of objects) raw.exec(`DROP ${String(row.type).toUpperCase()} ${String(row.name)}`);
    for (const type of ["view", "trigger"])
      for (const row of objects.filter((o) => o.type === type)) raw.exec(layout1(String(row.sql)));
    raw.exec("UPDATE state_meta SET value = 'v1-an-earlier-version' WHERE key = 'schema_fingerprint'");
    raw.close();
    const before = fs.readFileSync(older);
    const check = cli(["--db", older, "check"]);
    expect(check.code, check.stdout + check.stderr).toBe(6);
    expect(check.stderr).toMatch(/built by an earlier version of sessiondb.*\[SCHEMA_OUTDATED\]/);
    const doc = cli(["--db", older, "doctor"]);
    expect(doc.code, doc.stdout + doc.stderr).toBe(6);
    expect(fs.readFileSync(older).equals(before)).toBe(true);
    // Searches meanwhile scan, and find what this version indexes.
    expect(json(cli(["--db", older, "search", "the", "--json"])).route).toBe("like");
  });

  it("a file that is not a database → exit 5", () => {
    const junk = path.join(dir, "junk.db");
    fs.writeFileSync(junk, "this is not a sqlite file at all, just text ".repeat(200));
    const r = cli(["--db", junk, "stats"]);
    expect(r.code).toBe(5);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("a busy store", () => {
  it("a read waits --wait ms for an exclusive lock, then exits 4", async () => {
    const file = path.join(dir, "busy-delete.db");
    withStore(file, (s) => s.createSession({ id: "x", source: "cli" }), { journalMode: "delete" });
    const lock = await holdLock(file, "exclusive");
    try {
      const r = cli(["--db", file, "--wait", "300", "stats"]);
      expect(r.code).toBe(4);
      // STORE_BUSY from the library's patience, or SQLITE_BUSY where a statement escaped it.
      expect(r.stderr).toMatch(/^sessiondb: .*\[(STORE_BUSY|SQLITE_BUSY)\]\n$/);
    } finally {
      await lock.release();
    }
    expect(cli(["--db", file, "stats"]).code).toBe(0);
  });

  it("an import into a write-locked WAL store exits 4 and imports nothing", async () => {
    const file = path.join(dir, "busy-wal.db");
    withStore(file, (s) => s.createSession({ id: "x", source: "cli" }));
    const jsonl = path.join(dir, "busy.jsonl");
    fs.writeFileSync(
      jsonl,
      '{"type":"session","id":"y","source":"cli","started_at":1}\n{"role":"user","content":"hi"}\n',
    );
    const lock = await holdLock(file, "immediate");
    try {
      const r = cli(["--db", file, "--wait", "300", "import", jsonl]);
      expect(r.code).toBe(4);
    } finally {
      await lock.release();
    }
    expect(withStore(file, (s) => s.getSession("y"), { readOnly: true })).toBeUndefined();
  });
});

describe("fts", () => {
  it("status, rebuild, optimize", () => {
    const copy = copyOfCorpus("fts.db");
    expect(json(cli(["--db", copy, "fts", "status", "--json"]))).toMatchObject({
      state: "ready",
      trigram: true,
    });
    const rebuilt = cli(["--db", copy, "fts", "rebuild", "--json"]);
    expect(rebuilt.code).toBe(0);
    expect(json(rebuilt)).toMatchObject({ rebuilt: true, messages: corpus.messages });
    expect(cli(["--db", copy, "fts", "optimize"]).stdout).toMatch(/^optimized in/);
    expect(cli(["--db", copy, "check"]).code).toBe(0);
  });

  it("rebuild while another process holds the admission lock → exit 4", async () => {
    const copy = copyOfCorpus("fts-held.db");
    const lock = await holdLock(`${copy}.fts-rebuild.lock`, "exclusive");
    try {
      const r = cli(["--db", copy, "fts", "rebuild", "--timeout", "200"]);
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/held by another process.*\[FTS_ADMISSION_HELD\]\n$/);
    } finally {
      await lock.release();
    }
  });

  it("backfill: SIGINT stops it cleanly (exit 130), a later run resumes and finishes", async () => {
    const copy = copyOfCorpus("backfill.db");
    const child = spawnCli(["--db", copy, "fts", "backfill", "--chunk", "20"]);
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stderr?.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes("fts backfill")) resolve();
      });
    });
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/interrupted at [\d,]+\/[\d,]+ rows; progress is saved/);
    const mid = json(cli(["--db", copy, "fts", "status", "--json"]));
    expect(mid.state).toBe("backfilling");
    expect(mid.indexed).toBeGreaterThan(0);
    expect(mid.indexed).toBeLessThan(mid.total);
    // Search stays complete meanwhile: the index is topped up by LIKE.
    const token = corpus.tokens.find((t) => t.indexedByFts && t.role !== "tool");
    const during = json(cli(["--db", copy, "search", token?.token as string, "--json"]));
    expect(during.route).toBe("fts+like");
    expect(during.hits.map((h: { messageId: number }) => h.messageId)).toEqual([token?.messageId]);

    const resumed = cli(["--db", copy, "fts", "backfill"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming a backfill at ${mid.indexed.toLocaleString("en-US")}/`);
    expect(resumed.stderr).toMatch(/100\.0%.*done/);
    expect(json(cli(["--db", copy, "fts", "status", "--json"]))).toMatchObject({ state: "ready" });
    expect(cli(["--db", copy, "check"]).code).toBe(0);
  });
});
