/**
 * `sessiondb import --from hermes` as a person runs it: the built CLI as a subprocess on each
 * runtime, over a Hermes state.db built from the formats package's fixture SQL at
 * ~/.hermes/state.db (or $HERMES_HOME/state.db); a re-import adds nothing; --watch brings a row
 * Hermes adds into search and stops on SIGINT with exit 0. The database file is only read.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { resolveDriver } from "@sessiondb/node";
import { describe, expect, it } from "vitest";
import { cli, json, sessionShapes, startCli, TARGETS, tempDir } from "./helpers.js";

const SQL = fileURLToPath(new URL("../../formats/test/fixtures/hermes/state.sql", import.meta.url));
const MAIN = "20260301_101500_a1b2c3";
const CHILD = "20260301_101630_d4e5f6";

/** Runs SQL on a Hermes database as Hermes would: a connection of its own. */
function hermesWrites(database: string, sql: string): void {
  const db = resolveDriver().open(database, { readOnly: false });
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

function hermesHome(folder = ".hermes"): { home: string; database: string; db: string } {
  const home = tempDir();
  fs.mkdirSync(path.join(home, folder));
  const database = path.join(home, folder, "state.db");
  hermesWrites(database, fs.readFileSync(SQL, "utf8"));
  return { home, database, db: path.join(home, "s.db") };
}

describe.each(TARGETS)("import --from hermes ($name)", (target) => {
  it("imports ~/.hermes/state.db with exact counts, reports the broken row, and again adds nothing", () => {
    const { home, database, db } = hermesHome();
    const before = fs.readFileSync(database);
    const run = (args: string[]) =>
      cli(["--db", db, ...args], { runtime: target.runtime, env: { ...target.env, HOME: home } });
    const first = run(["import", "--from", "hermes", "--json"]);
    expect(first.code, first.stderr).toBe(8);
    const out = json(first);
    expect(out.format).toBe("hermes");
    expect(out.files).toEqual({ total: 1, read: 1, unchanged: 0 });
    expect(out.sessions).toEqual({ created: 2, grown: 0, unchanged: 0 });
    expect(out.messages).toBe(18);
    expect(out.unknown).toEqual({ session_meta: 1 });
    expect(out.unpriced).toEqual({ "hermes-4-405b": 1 });
    expect(out.problems).toEqual([
      {
        file: database,
        table: "messages",
        row: 9,
        message: expect.stringMatching(/^tool_calls is not JSON/),
      },
    ]);
    const again = run(["import", "--from", "hermes"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("imported 0 messages from 1 database (hermes)");
    expect(again.stdout).toContain("2 sessions unchanged");
    expect(sessionShapes(run(["sessions", "list", "--json"]))).toEqual([
      [MAIN, "claude-sonnet-4-5", 9, null],
      [CHILD, "gpt-5-mini", 2, MAIN],
    ]);
    // Hermes's own estimate for the child (0.00265); sonnet's estimated from list prices
    // (0.0846); hermes-4-405b has no price.
    const usage = json(run(["usage", "--json"]));
    expect([usage.total.cost, usage.total.estimatedCost]).toEqual([0.08725, 0.0846]);
    const found = json(run(["search", "日本語", "--json"]));
    expect(JSON.stringify(found)).toContain(MAIN);
    expect(fs.readFileSync(database).equals(before)).toBe(true);
  });
});

describe("import --from hermes", () => {
  it("reads $HERMES_HOME/state.db when HERMES_HOME is set, and names a missing database", () => {
    const { home, db } = hermesHome("profile");
    const env = { HOME: home, HERMES_HOME: path.join(home, "profile") };
    const r = cli(["--db", db, "import", "--from", "hermes", "--json"], { env });
    expect(r.code, r.stderr).toBe(8);
    expect(json(r).sessions.created).toBe(2);
    const missing = cli(["--db", db, "import", "--from", "hermes", path.join(home, "none.db")], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("none.db");
  });

  it("--watch brings a row Hermes adds into search within seconds, and SIGINT ends it with exit 0", async () => {
    const { database, db } = hermesHome();
    const { child, closed } = startCli(["--db", db, "import", "--from", "hermes", "--watch", database]);
    const searchFor = async (word: string) => {
      for (let i = 0; i < 100; i++) {
        const r = cli(["--db", db, "search", word, "--json"]);
        if (r.code === 0 && JSON.stringify(json(r)).includes(CHILD)) return true;
        await new Promise((res) => setTimeout(res, 100));
      }
      return false;
    };
    expect(await searchFor("EastAsianWidth")).toBe(true);
    hermesWrites(
      database,
      `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('${CHILD}', 'assistant', 'zanzibarian width table', 1772360395.0)`,
    );
    expect(await searchFor("zanzibarian")).toBe(true);
    child.kill("SIGINT");
    const { code, stderr } = await closed;
    expect(code, stderr).toBe(0);
  }, 30_000);
});
