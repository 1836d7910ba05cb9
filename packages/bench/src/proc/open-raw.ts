/**
 * Whole-process cold open, reference side: the runtime opens the file with its raw binding,
 * counts messages, prints the count and exits. Only the binding is loaded: no sessiondb code.
 * Usage: <runtime> dist/proc/open-raw.js <target> <db>
 */
import { createRequire } from "node:module";
import process from "node:process";

const [target, path] = process.argv.slice(2) as [string, string];
const sql = "SELECT count(*) AS n FROM messages";
let n: unknown;
if (target === "node-better-sqlite3") {
  const Database = createRequire(import.meta.url)("better-sqlite3");
  const db = new Database(path);
  n = db.prepare(sql).get().n;
  db.close();
} else if (target === "bun-sqlite") {
  const specifier = "bun:sqlite";
  const { Database } = await import(specifier);
  const db = new Database(path);
  n = db.prepare(sql).get().n;
  db.close();
} else {
  const specifier = "node:sqlite";
  const { DatabaseSync } = await import(specifier);
  const db = new DatabaseSync(path);
  n = db.prepare(sql).get().n;
  db.close();
}
process.stdout.write(`${n}\n`);
