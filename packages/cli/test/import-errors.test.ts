/**
 * `import` reports every bad record by its line and imports the rest (exit 8): values the store
 * refuses (ids with control characters or lone surrogates, content over the limit, JSON nested too
 * deep), lines that are not records (invalid JSON, a bad role or timestamp). A "__proto__" key and
 * NUL are ordinary data. An empty file is an error. The input file is never the store, one of its files, or a database;
 * a stream that can be read only once (a pipe) is imported whole. On every runtime.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  cli,
  corpusStore,
  digest,
  expectOneLineError,
  filesIn,
  json,
  runOn,
  storeState,
  TARGETS,
  tempDir,
  withStore,
} from "./helpers.js";

const session = (id: string, startedAt: number, extra: object = {}) =>
  JSON.stringify({ type: "session", id, source: "cli", started_at: startedAt, ...extra });
const message = (content: unknown, extra: object = {}) =>
  JSON.stringify({ role: "user", content, timestamp: 1, ...extra });

/** Good sessions around bad ones; `bad` maps each bad line number to what its report must say. */
const LINES: string[] = [
  session("good-1", 1), // 1
  message("first"), // 2
  session("ctl\u0001id", 2), // 3
  message("x"), // 4
  session("lone-\ud800", 3), // 5
  message("x"), // 6
  session("bad-role", 4), // 7
  JSON.stringify({ role: "wizard", content: "x" }), // 8
  session("bad-timestamp", 5), // 9
  message("x", { timestamp: "yesterday" }), // 10
  session("infinite-timestamp", 6), // 11
  '{"role":"user","content":"x","timestamp":1e400}', // 12
  session("huge", 7), // 13
  message("x".repeat(16 * 1024 * 1024 + 1)), // 14
  session("not-json", 8), // 15
  '{"role":"user","content": oops}', // 16
  session("proto", 9), // 17
  '{"role":"user","content":"x","metadata":{"a":{"__proto__":{"kept":true}}}}', // 18: plain data
  session("deep", 10), // 19
  `{"role":"user","content":${"[".repeat(10_000)}${"]".repeat(10_000)}}`, // 20
  session("bad-parent", 11, { parent_session_id: "p\u0002" }), // 21
  message("x"), // 22
  session("nul", 12), // 23
  message("a\u0000b"), // 24: NUL is an ordinary character
  session("good-2", 13), // 25
  message("last"), // 26
];
const BAD: Record<number, RegExp> = {
  3: /session "ctl\\u0001id": Invalid id: must not contain control characters/,
  5: /session "lone-\\ud800": Invalid id: must not contain lone surrogates/,
  8: /session "bad-role": "role" must be one of/,
  10: /session "bad-timestamp": "timestamp" must be a finite number/,
  12: /session "infinite-timestamp": "timestamp" must be a finite number/,
  14: /session "huge": Invalid messages\[0\]\.content: 16777217 characters is more than/,
  16: /session "not-json": not valid JSON/,
  20: /session "deep": Invalid messages\[0\]\.content.*nested more than 64 levels/,
  21: /session "bad-parent": Invalid parentSessionId: must not contain control characters/,
};
const GOOD = ["good-1", "good-2", "nul", "proto"];

let dir: string;
let file: string;

beforeAll(() => {
  dir = tempDir();
  file = path.join(dir, "mixed.jsonl");
  fs.writeFileSync(file, `${LINES.join("\n")}\n`);
});

describe.each(TARGETS)("$name", (target) => {
  const run = runOn(target);
  const name = target.name.replace(/\W+/g, "-");

  it("bad records are reported by line and left out; the good ones are imported; exit 8", () => {
    const db = path.join(dir, `${name}-mixed.db`);
    const r = run(["--db", db, "import", file]);
    expect(r.code, r.stderr).toBe(8);
    const reported = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("line "))
      .map((l) => Number(/^line (\d+):/.exec(l)?.[1]));
    expect(reported).toEqual(Object.keys(BAD).map(Number));
    for (const [line, pattern] of Object.entries(BAD))
      expect(r.stderr).toMatch(new RegExp(`^line ${line}: ${pattern.source}`, "m"));
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toMatch(/^imported 4 sessions \(4 messages\); 9 not imported because of bad lines$/m);
    const stored = withStore(
      db,
      (s) => ({
        ids: s
          .listSessions({ includeArchived: true })
          .map((x) => x.id)
          .sort(),
        nul: s.getMessages("nul")[0]?.content,
      }),
      { readOnly: true },
    );
    expect(stored.ids).toEqual([...GOOD].sort());
    // NUL is an ordinary character: stored whole (read here through better-sqlite3).
    expect(stored.nul).toBe("a\u0000b");
    expect(storeState(db)).toMatchObject({ check: 0, sessions: 4, messages: 4 });
    // JSON.parse makes "__proto__" an ordinary key; it is stored and exported as one.
    expect(run(["--db", db, "export", "--session", "proto"]).stdout).toContain(
      '"metadata":{"a":{"__proto__":{"kept":true}}}',
    );

    const asJson = json(run(["--db", path.join(dir, `${name}-mixed-json.db`), "import", file, "--json"]));
    expect(asJson.errors.map((e: { line: number }) => e.line)).toEqual(Object.keys(BAD).map(Number));
    expect(asJson.sessions).toMatchObject({ imported: 4, failed: 9 });
  });

  it("parents: one later in the file is waited for; one in neither the file nor the store is dropped with a warning", () => {
    const db = path.join(dir, `${name}-parents.db`);
    const first = path.join(dir, `${name}-parents-1.jsonl`);
    fs.writeFileSync(first, `${[session("stored-parent", 1), message("p")].join("\n")}\n`);
    expect(run(["--db", db, "import", first]).code).toBe(0);
    const second = path.join(dir, `${name}-parents-2.jsonl`);
    const lines = [
      session("child-early", 2, { parent_session_id: "late-parent" }), // 1
      message("a"),
      session("orphan", 3, { parent_session_id: "nowhere" }), // 3
      message("b"),
      session("kept", 4, { parent_session_id: "stored-parent" }), // 5
      message("c"),
      session("late-parent", 5), // 7
      message("d"),
      session("child-of-broken", 6, { parent_session_id: "broken" }), // 9
      message("e"),
      session("broken", 7), // 11
      JSON.stringify({ role: "wizard", content: "x" }), // 12
    ];
    fs.writeFileSync(second, `${lines.join("\n")}\n`);
    const r = json(run(["--db", db, "import", second, "--json"]));
    expect(r.sessions).toMatchObject({ imported: 5, failed: 1 });
    expect(r.errors.map((e: { line: number }) => e.line)).toEqual([12]);
    expect(r.warnings).toEqual([
      {
        line: 3,
        sessionId: "orphan",
        message:
          'parent session "nowhere" is neither in the store nor imported from the file; imported without a parent',
      },
      {
        line: 9,
        sessionId: "child-of-broken",
        message:
          'parent session "broken" is neither in the store nor imported from the file; imported without a parent',
      },
    ]);
    const parents = withStore(
      db,
      (s) =>
        Object.fromEntries(
          ["child-early", "orphan", "kept", "child-of-broken"].map((id) => [
            id,
            s.getSession(id)?.parentSessionId,
          ]),
        ),
      { readOnly: true },
    );
    expect(parents).toEqual({
      "child-early": "late-parent",
      orphan: null,
      kept: "stored-parent",
      "child-of-broken": null,
    });
  });

  it("NUL in content is imported and exported whole", () => {
    const db = path.join(dir, `${name}-nul.db`);
    const input = path.join(dir, `${name}-nul.jsonl`);
    fs.writeFileSync(input, `${session("nul", 1)}\n${message("a\u0000b")}\n`);
    expect(run(["--db", db, "import", input]).code).toBe(0);
    expect(run(["--db", db, "export"]).stdout).toContain('"content":"a\\u0000b"');
  });

  it("an empty file, or one of blank lines only, is an error and creates no store", () => {
    for (const [label, text] of [
      ["empty", ""],
      ["blank", "\n  \n\r\n"],
      ["bom", "\uFEFF\n"],
    ]) {
      const input = path.join(dir, `${name}-${label}.jsonl`);
      fs.writeFileSync(input, text as string);
      const db = path.join(dir, `${name}-${label}.db`);
      expectOneLineError(run(["--db", db, "import", input]), 2, "EMPTY_INPUT");
      expect(fs.existsSync(db)).toBe(false);
    }
    const db = path.join(dir, `${name}-stdin-empty.db`);
    expectOneLineError(run(["--db", db, "import", "-"]), 2, "EMPTY_INPUT");
    expect(fs.existsSync(db)).toBe(false);
  });

  it("only bad lines: exit 8 and no store is created", () => {
    const input = path.join(dir, `${name}-all-bad.jsonl`);
    fs.writeFileSync(input, `${session("x\u0007", 1)}\nnot json\n`);
    const db = path.join(dir, `${name}-all-bad.db`);
    const r = run(["--db", db, "import", input]);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^line 2: .*not valid JSON/m);
    expect(fs.existsSync(db)).toBe(false);
  });

  it("the input is never the store, one of its files, another database, or a folder", () => {
    const folder = tempDir();
    const db = path.join(folder, "state.db");
    corpusStore(db, 50, 4);
    const other = path.join(folder, "other.db");
    corpusStore(other, 10, 5);
    const state = storeState(db);
    const hard = path.join(folder, "hard.jsonl");
    fs.linkSync(db, hard);
    // An empty journal is not hot: SQLite ignores it, and it gives the path something to refuse.
    fs.writeFileSync(`${db}-journal`, "");
    const bytes = digest(db);
    const before = filesIn(folder);
    for (const [input, code] of [
      [db, "STORE_FILE"],
      [hard, "STORE_FILE"],
      [`${db}-journal`, "STORE_FILE"],
      [other, "DATABASE_FILE"],
      [folder, "EISDIR"],
      [path.join(folder, "missing.jsonl"), "ENOENT"],
    ] as const) {
      expectOneLineError(run(["--db", db, "import", input]), 2, code);
    }
    // Another database on stdin, redirected from its file or piped: told by its first bytes,
    // as a named file is (a pipe has no name to look up).
    const stdinFrom = cli(["--db", db, "import", "-"], {
      runtime: target.runtime,
      ...(target.env ? { env: target.env } : {}),
      stdinFile: other,
    });
    expectOneLineError(stdinFrom, 2, "DATABASE_FILE");
    expect(stdinFrom.stderr).toContain("stdin is a SQLite database, not a JSONL file");
    // The header SQLite writes first, then bytes that are no JSON at all.
    expectOneLineError(
      run(["--db", db, "import", "-"], `SQLite format 3\u0000${"\u0001".repeat(200)}`),
      2,
      "DATABASE_FILE",
    );
    // A missing file reads like a missing folder on its way, and like other commands' files.
    for (const input of [path.join(folder, "missing.jsonl"), path.join(folder, "nope", "x.jsonl")]) {
      expect(run(["--db", db, "import", input]).stderr).toBe(
        `sessiondb: cannot read ${input}: no such file or folder; nothing was imported [ENOENT]\n`,
      );
    }
    expect(digest(db)).toBe(bytes);
    expect(filesIn(folder)).toEqual(before);
    fs.rmSync(`${db}-journal`);
    expect(storeState(db)).toEqual(state);
    expect(state.check).toBe(0);
  });

  it("the default store's folder blocked by a file: one line, exit 2, nothing created", () => {
    const home = tempDir();
    fs.writeFileSync(path.join(home, ".sessiondb"), "");
    const r = cli(["import", file], { runtime: target.runtime, env: { ...target.env, HOME: home } });
    expectOneLineError(r, 2, "EEXIST");
    // (Bun and Deno keep caches in $HOME: only the store's own name is looked at.)
    expect(filesIn(home).filter((f) => f.startsWith(".sessiondb"))).toEqual([".sessiondb"]);
    expect(fs.readFileSync(path.join(home, ".sessiondb"), "utf8")).toBe("");
  });

  it("a named pipe is read once and imported whole (both passes)", async (ctx) => {
    const fifo = path.join(tempDir(), "in.fifo");
    const made = spawnSync("mkfifo", [fifo], { encoding: "utf8" });
    if (made.status !== 0) {
      const reason = `mkfifo failed: ${made.error?.message ?? made.stderr}`;
      console.warn(`skipped: ${reason}`);
      ctx.skip(reason);
    }
    const db = path.join(dir, `${name}-fifo.db`);
    const [exe, ...pre] = target.runtime;
    const child = spawn(exe as string, [...pre, CLI, "--db", db, "import", fifo], {
      env: { ...process.env, NO_COLOR: "1", ...target.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    // "close", not "exit": stderr is complete only then.
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // Opening a FIFO for writing waits for its reader: the CLI.
    const writer = fs.createWriteStream(fifo);
    writer.end(`${session("piped", 1)}\n${message("hi")}\n`);
    expect(await exited, out).toBe(0);
    expect(out).toMatch(/^imported 1 session \(1 message\)$/m);
    expect(storeState(db)).toMatchObject({ check: 0, sessions: 1, messages: 1 });
  });
});

it("stdin redirected from the store is refused", () => {
  const folder = tempDir();
  const db = path.join(folder, "state.db");
  corpusStore(db, 20, 6);
  const bytes = digest(db);
  const r = cli(["--db", db, "import", "-"], { stdinFile: db });
  expectOneLineError(r, 2, "STORE_FILE");
  expect(digest(db)).toBe(bytes);
});
