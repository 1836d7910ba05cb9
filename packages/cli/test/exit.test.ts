/**
 * The CLI ends on its own once its work is done, with the exit code set, instead of calling
 * process.exit: on Node 24, process.exit can hang for ever when one of V8's background compiler
 * threads is waiting for a garbage collection at that moment (nodejs/node#54918); an `import` in
 * this suite once hung so, its work done. A preload reports every process.exit call on stderr.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, TARGETS, tempDir, withStore } from "./helpers.js";

const PRELOAD = new URL("./fixtures/watch-exit.mjs", import.meta.url).href;
const NODE_TARGETS = TARGETS.filter((t) => path.basename(t.runtime[0] as string) === "node");

describe.each(NODE_TARGETS)("on $name", (target) => {
  const run = (args: string[]) =>
    cli(args, {
      runtime: [...target.runtime, "--import", PRELOAD],
      ...(target.env ? { env: target.env } : {}),
    });

  it("reads, writes and fails without calling process.exit, with the right exit codes", () => {
    const dir = tempDir();
    const source = path.join(dir, "source.db");
    withStore(source, (store) => {
      store.createSession({ id: "s1", source: "cli", title: "exit check" });
      store.appendMessages("s1", [
        { role: "user", content: "how do I run the migration" },
        { role: "assistant", content: "run the migration with --dry-run first" },
      ]);
    });
    const exported = path.join(dir, "s.jsonl");
    const db = path.join(dir, "state.db");
    const runs: Array<[string[], number]> = [
      [["--help"], 0],
      [["--db", source, "export", "--output", exported], 0],
      [["--db", db, "import", exported], 0],
      [["--db", db, "stats"], 0],
      [["--db", db, "search", "migration", "--json"], 0],
      [["--db", db, "backup", path.join(dir, "copy.db")], 0],
      [["--db", path.join(dir, "missing.db"), "stats"], 3],
      [["--db", db, "sessions", "show", "nope"], 7],
    ];
    for (const [args, code] of runs) {
      const r = run(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(code);
      expect(r.stderr, args.join(" ")).not.toContain("process.exit(");
    }
    expect(fs.existsSync(path.join(dir, "copy.db"))).toBe(true);
  });

  it("the preload sees a call of process.exit (so the check above can fail)", () => {
    const [exe, ...pre] = target.runtime;
    const r = spawnSync(exe as string, [...pre, "--import", PRELOAD, "-e", "process.exit(5)"], {
      encoding: "utf8",
    });
    expect(r.status).toBe(5);
    expect(r.stderr).toContain("process.exit(5) called");
  });
});
