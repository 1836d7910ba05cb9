/**
 * Whole-process cold open, reference side: the runtime opens the file with its raw binding,
 * runs the same read as open-store.js (a count of all messages, or with `<session> <last>` the
 * session's last rows by the same index, or with `<session> append` one message appended as the
 * store writes it: its statements in one immediate transaction, synchronous = FULL as the store's
 * default durability) and prints the same JSON line. Only the binding is loaded: no sessiondb code.
 * Usage: <runtime> dist/proc/open-raw.js <target> <db> [<session> <last>|append]
 */
import { APPEND_TEXT, RAW_INSERT_MESSAGE_SQL, RAW_UPDATE_SESSION_SQL } from "./append-sql.js";
import { reportRun } from "./report-run.js";
import { RESUME_SQL } from "./resume-sql.js";
import { scriptArgs } from "./script-args.js";

interface Db {
  prepare(sql: string): {
    get(...p: unknown[]): { n: unknown };
    all(...p: unknown[]): unknown[];
    run(...p: unknown[]): unknown;
  };
  exec(sql: string): void;
  close(): void;
}

/** One message appended to `session` as appendMessage writes it (store/messages.ts). */
function appendOne(db: Db, session: string): number {
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA synchronous = FULL");
  const t = Date.now() / 1000;
  db.exec("BEGIN IMMEDIATE");
  db.prepare(RAW_UPDATE_SESSION_SQL).run(1, 0, t, t, session);
  db.prepare(RAW_INSERT_MESSAGE_SQL).run(
    session,
    "user",
    APPEND_TEXT,
    null,
    null,
    null,
    null,
    t,
    null,
    null,
    null,
    null,
  );
  db.exec("COMMIT");
  return 1;
}

const t0 = performance.now();
const [target, path, session, last] = scriptArgs() as [string, string, string?, string?];
let open: (path: string) => Db;
if (target === "node-better-sqlite3") {
  // Loaded here, not at the top: a static import of node:module would make Bun, Deno (its Node
  // layer, ~20 ms of CPU) and Node 24 pay for a module their binding does not need.
  const { createRequire } = await import("node:module");
  const Database = createRequire(import.meta.url)("better-sqlite3");
  open = (p) => new Database(p);
} else if (target === "bun-sqlite") {
  const specifier = "bun:sqlite";
  const { Database } = await import(specifier);
  open = (p) => new Database(p);
} else {
  const specifier = "node:sqlite";
  const { DatabaseSync } = await import(specifier);
  open = (p) => new DatabaseSync(p);
}
const t1 = performance.now();
const db = open(path);
const t2 = performance.now();
const n =
  session === undefined
    ? db.prepare("SELECT count(*) AS n FROM messages").get().n
    : last === "append"
      ? appendOne(db, session)
      : db.prepare(RESUME_SQL).all(session, Number(last)).length;
db.close();
const t3 = performance.now();
reportRun(Number(n), t0, t1, t2, t3);
