/**
 * Core's driver contract on bun:sqlite, with lock holders in another Bun process too, plus the
 * one thing only this driver has: its own lexer for refusing a second statement.
 */
import { describe, expect, it } from "bun:test";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { childLockHolder, runDriverContract } from "@sessiondb/conformance";
import { bunSqliteDriver, hasSecondStatement } from "../src/bun-sqlite.js";

/** The holder: another Bun process; "locked" once it holds `begin`, rolls back when stdin closes. */
const HOLDER = `
import { Database } from "bun:sqlite";
const [path, begin] = process.argv.slice(2);
const db = new Database(path);
db.exec(begin);
db.exec("INSERT INTO t(v) VALUES ('held')");
process.stdout.write("locked\\n");
for await (const _ of process.stdin) {}
db.exec("ROLLBACK");
db.close();
`;

const holdLock = childLockHolder((path, begin) => {
  const script = join(dirname(path), "holder.ts");
  writeFileSync(script, HOLDER);
  return [process.execPath, script, path, begin];
});

// bun:sqlite cannot turn double-quoted string literals off: they are as its SQLite build has them.
runDriverContract({
  name: "bun:sqlite",
  driver: bunSqliteDriver(),
  holdLock,
  dqsFromBuild: true,
  describe,
  it,
});

describe("bun:sqlite's statement lexer", () => {
  it("sees through quoted identifiers, comments and trigger bodies", () => {
    expect(hasSecondStatement("SELECT 'a;b' AS s, \"x;\" AS q, [y;] AS r /* ; */ ;")).toBe(false);
    expect(hasSecondStatement("SELECT 1 AS one; -- trailing comment\n")).toBe(false);
    expect(hasSecondStatement("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END;")).toBe(
      false,
    );
    expect(hasSecondStatement("SELECT ';' AS a; DELETE FROM x")).toBe(true);
    expect(hasSecondStatement("CREATE TEMP TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; END; SELECT 2")).toBe(
      true,
    );
  });
});
