/**
 * `sessiondb import --from opencode` as a person runs it: the built CLI as a subprocess on each
 * runtime, over an opencode data folder at ~/.local/share/opencode (its opencode.db built from
 * the formats package's fixture SQL, its older storage/ folder beside it); exact counts, the
 * broken row and file reported, a re-import adds nothing, what opencode writes meanwhile comes
 * in on the next run; $XDG_DATA_HOME moves the default folder as it moves opencode's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { resolveDriver } from "@sessiondb/node";
import { describe, expect, it } from "vitest";
import { cli, json, sessionShapes, TARGETS, tempDir } from "./helpers.js";

const FIXTURES = fileURLToPath(new URL("../../formats/test/fixtures/opencode", import.meta.url));

/** Runs SQL on the opencode database as opencode would: a connection of its own. */
function opencodeWrites(database: string, sql: string): void {
  const db = resolveDriver().open(database, { readOnly: false });
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

function opencodeHome(data = ".local/share"): { home: string; folder: string; database: string; db: string } {
  const home = tempDir();
  const folder = path.join(home, data, "opencode");
  fs.mkdirSync(folder, { recursive: true });
  const database = path.join(folder, "opencode.db");
  opencodeWrites(
    database,
    `PRAGMA journal_mode = WAL;\n${fs.readFileSync(path.join(FIXTURES, "opencode.sql"), "utf8")}`,
  );
  fs.cpSync(path.join(FIXTURES, "storage"), path.join(folder, "storage"), { recursive: true });
  return { home, folder, database, db: path.join(home, "s.db") };
}

describe.each(TARGETS)("import --from opencode ($name)", (target) => {
  it("imports the data folder with exact counts, reports the broken row, and again adds nothing", () => {
    const { home, database, db } = opencodeHome();
    const before = fs.readFileSync(database);
    const run = (args: string[]) =>
      cli(["--db", db, ...args], {
        runtime: target.runtime,
        env: { ...target.env, HOME: home, XDG_DATA_HOME: "" },
      });
    const first = run(["import", "--from", "opencode", "--json"]);
    expect(first.code, first.stderr).toBe(8);
    const out = json(first);
    expect(out.format).toBe("opencode");
    expect(out.files).toEqual({ total: 1, read: 1, unchanged: 0 });
    expect(out.sessions).toEqual({ created: 3, grown: 0, unchanged: 0 });
    // 6 messages, 28 parts, 4 tool results from the database; 2, 3 and 1 from the storage.
    expect(out.messages).toBe(44);
    expect(out.unknown).toEqual({ hologram: 1 });
    expect(out.unpriced).toEqual({});
    expect(out.problems).toEqual([
      {
        file: database,
        table: "message",
        row: "msg_01d",
        message: expect.stringMatching(/^part row "prt_01d5": data is not JSON/),
      },
    ]);
    expect(fs.readFileSync(database).equals(before)).toBe(true);
    const again = run(["import", "--from", "opencode", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ messages: 0, sessions: { created: 0, grown: 0, unchanged: 3 } });
    expect(sessionShapes(run(["sessions", "list", "--json"]))).toEqual([
      ["ses_01main", "claude-sonnet-4-5", 14, null],
      ["ses_02child", "claude-haiku-4-5", 2, "ses_01main"],
      ["ses_03old", "claude-sonnet-4-20250514", 4, null],
    ]);
    // opencode records its costs: they are summed as recorded, none estimated.
    const usage = json(run(["usage", "--json"]));
    expect([usage.total.cost, usage.total.estimatedCost ?? 0]).toEqual([0.0353, 0]);
    expect(JSON.stringify(json(run(["search", "幅が広すぎる", "--json"])))).toContain("ses_01main");

    // opencode answers again in the child session: the next import brings only that in.
    opencodeWrites(
      database,
      `INSERT INTO message VALUES ('msg_02c', 'ses_02child', 1765000160000, 1765000160000,
         '{"role":"user","time":{"created":1765000160000}}');
       INSERT INTO part VALUES ('prt_02c1', 'msg_02c', 'ses_02child', 1765000160000, 1765000160000,
         '{"type":"text","text":"Und die Höhe?"}');`,
    );
    const grown = json(run(["import", "--from", "opencode", "--json"]));
    expect(grown).toMatchObject({ messages: 2, sessions: { created: 0, grown: 1, unchanged: 2 } });
  });

  it("takes $XDG_DATA_HOME as opencode does, and a folder or database named", () => {
    const { home, folder, database, db } = opencodeHome("data");
    const run = (args: string[], env: Record<string, string> = {}) =>
      cli(["--db", db, ...args], { runtime: target.runtime, env: { ...target.env, HOME: home, ...env } });
    const moved = json(
      run(["import", "--from", "opencode", "--json"], { XDG_DATA_HOME: path.join(home, "data") }),
    );
    expect(moved.sessions.created).toBe(3);
    const named = json(run(["import", "--from", "opencode", folder, "--json"], { XDG_DATA_HOME: "" }));
    expect(named).toMatchObject({ messages: 0, sessions: { unchanged: 3 } });
    const file = json(run(["import", "--from", "opencode", database, "--json"], { XDG_DATA_HOME: "" }));
    expect(file).toMatchObject({ messages: 0 });
  });
});
