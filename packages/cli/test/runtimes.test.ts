/**
 * The same binary on every runtime: Node with better-sqlite3 and with node:sqlite, Bun with
 * bun:sqlite, Deno with node:sqlite. Each runs the real dist/cli.js against one corpus store, and
 * every runtime's export of it must be the same bytes; an import on one runtime must export the
 * same bytes on another.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { CorpusSummary } from "@sessiondb/bench/corpus";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, corpusStore, json, runOn, TARGETS, tempDir } from "./helpers.js";

let dir: string;
let db: string;
let corpus: CorpusSummary;
let reference: string;

beforeAll(() => {
  dir = tempDir();
  db = path.join(dir, "corpus.db");
  corpus = corpusStore(db, 600, 3);
  const r = cli(["--db", db, "export"]);
  expect(r.code).toBe(0);
  reference = r.stdout;
});

describe.each(TARGETS)("$name", (target) => {
  const run = runOn(target);

  it("help, and a missing store exits 3 without creating it", () => {
    expect(run(["--help"]).code).toBe(0);
    const missing = path.join(dir, `${target.driver.replace(/\W/g, "")}-missing.db`);
    const r = run(["--db", missing, "stats"]);
    expect(r.code).toBe(3);
    expect(fs.existsSync(missing)).toBe(false);
  });

  it("stats and search read the corpus", () => {
    const s = json(run(["--db", db, "stats", "--json"]));
    expect(s.driver).toBe(target.driver);
    expect(s.messages.total).toBe(corpus.messages);
    expect(s.messages.byRole).toEqual(corpus.byRole);
    const token = corpus.tokens.find((t) => t.indexedByFts);
    const hits = json(run(["--db", db, "search", token?.token as string, "--json"])).hits;
    expect(hits.map((h: { messageId: number }) => h.messageId)).toEqual([token?.messageId]);
  });

  it("exports the same bytes as every other runtime", () => {
    const r = run(["--db", db, "export"]);
    expect(r.code).toBe(0);
    expect(r.stdout === reference).toBe(true);
  });

  it("imports what it exported: the store exports the same bytes again; doctor and check pass", () => {
    const file = path.join(dir, "reference.jsonl");
    fs.writeFileSync(file, reference);
    const target2 = path.join(dir, `${target.name.replace(/\W+/g, "-")}.db`);
    const imp = run(["--db", target2, "import", file, "--json"]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(json(imp).messages).toBe(corpus.messages);
    expect(cli(["--db", target2, "export"]).stdout === reference).toBe(true);
    expect(run(["--db", target2, "check"]).code).toBe(0);
    const doctor = run(["--db", target2, "doctor"]);
    expect(doctor.code, doctor.stdout).toBe(0);
    const backfill = run(["--db", target2, "fts", "backfill", "--chunk", "100"]);
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(json(run(["--db", target2, "fts", "status", "--json"])).state).toBe("ready");
  });
});
