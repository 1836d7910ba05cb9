/**
 * `backup` and `export` whose destination's disk is full, for real (a small tmpfs; needs root,
 * else skipped with the reason): one line saying so, exit 1 with code ENOSPC (exit 10 is for the
 * store's own disk), and nothing partial left behind — no temporary file, an existing file
 * unchanged; `--output-dir` keeps the files it finished, which are complete.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, expectOneLineError, tempDir, tmpfsOrSkip, unmount, withStore } from "./helpers.js";

/** A store of a small session "a" (a few KB exported) and a large one "b" (about 2 MB). */
let db: string;
const mounts: string[] = [];

beforeAll(() => {
  db = path.join(tempDir(), "state.db");
  withStore(db, (s) => {
    s.createSession({ id: "a", source: "cli", startedAt: 1_700_000_000 });
    s.appendMessages("a", [{ role: "user", content: "small" }]);
    s.createSession({ id: "b", source: "cli", startedAt: 1_700_000_001 });
    s.appendMessages(
      "b",
      Array.from({ length: 500 }, (_, i) => ({ role: "user" as const, content: `${"y".repeat(4000)} ${i}` })),
    );
  });
});

afterAll(() => {
  for (const dir of mounts) unmount(dir);
});

/** A 1 MiB tmpfs: room for session "a", not for "b" or a copy of the store. */
function smallDisk(ctx: { skip: (reason: string) => void }): string {
  const dir = path.join(tempDir(), "full");
  tmpfsOrSkip(ctx, dir, "size=1m");
  mounts.push(dir);
  return dir;
}

describe("a destination on a full disk", () => {
  it("backup: exit 1 ENOSPC naming DEST, no DEST, no temporary copy; an existing DEST unchanged", (ctx) => {
    const dir = smallDisk(ctx);
    const dest = path.join(dir, "copy.db");
    const r = cli(["--db", db, "backup", dest]);
    expectOneLineError({ ...r, stderr: r.stderr.replace(/^backup .*\n/gm, "") }, 1, "ENOSPC");
    expect(r.stderr).toContain(
      `cannot write ${dest}: the disk (or quota) holding it is full; nothing was written`,
    );
    expect(fs.readdirSync(dir)).toEqual([]);

    fs.writeFileSync(dest, "before");
    const again = cli(["--db", db, "backup", dest, "--overwrite", "--json"]);
    expect(again.code, again.stderr).toBe(1);
    expect(JSON.parse(again.stderr.trim().split("\n").at(-1) as string)).toMatchObject({
      error: { code: "ENOSPC", exit: 1 },
    });
    expect(fs.readdirSync(dir)).toEqual(["copy.db"]);
    expect(fs.readFileSync(dest, "utf8")).toBe("before");
  });

  it("export --output: exit 1 ENOSPC, an existing FILE unchanged, no temporary file", (ctx) => {
    const dir = smallDisk(ctx);
    const out = path.join(dir, "all.jsonl");
    fs.writeFileSync(out, "before\n");
    const r = cli(["--db", db, "export", "--output", out]);
    expectOneLineError(r, 1, "ENOSPC");
    expect(r.stderr).toContain(
      `cannot write --output ${out}: no space left on the device; ${out} is unchanged`,
    );
    expect(fs.readdirSync(dir)).toEqual(["all.jsonl"]);
    expect(fs.readFileSync(out, "utf8")).toBe("before\n");
  });

  it("export --output-dir: exit 1 ENOSPC naming the file it could not write; the finished file is complete and kept", (ctx) => {
    const dir = smallDisk(ctx);
    const folder = path.join(dir, "out");
    const r = cli(["--db", db, "export", "--output-dir", folder]);
    expectOneLineError(r, 1, "ENOSPC");
    expect(r.stderr).toContain(
      `cannot write ${path.join(folder, "b.jsonl")}: no space left on the device; this file was not written; the file before it in ${folder} is complete and kept`,
    );
    expect(fs.readdirSync(folder)).toEqual(["a.jsonl"]);
    const lines = fs.readFileSync(path.join(folder, "a.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).content)).toEqual([undefined, "small"]);
  });
});
