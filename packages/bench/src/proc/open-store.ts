/**
 * Whole-process cold open, store side: the runtime loads its sessiondb adapter, opens the
 * store, reads, closes and prints one JSON line `{ n, loadMs, openMs, readMs }` (module load,
 * open, read; measured inside the process). The read is `messageCount()` (cold open), or with
 * `<session> <last>` the session's last messages (`getMessages(session, { last })`: a resume),
 * or with `<session> append` one `appendMessage` (what an agent's hook does; n is 1).
 * Usage: <runtime> dist/proc/open-store.js <target> <db> [<session> <last>|append]
 */
import { APPEND_TEXT } from "./append-sql.js";
import { reportRun } from "./report-run.js";
import { scriptArgs } from "./script-args.js";

const t0 = performance.now();
const [target, path, session, last] = scriptArgs() as [string, string, string?, string?];
const adapter = target.startsWith("node-")
  ? "@sessiondb/node"
  : target.startsWith("bun-")
    ? "@sessiondb/bun"
    : "@sessiondb/deno";
const options =
  target === "node-better-sqlite3"
    ? { driver: "better-sqlite3" }
    : target === "node-sqlite"
      ? { driver: "node:sqlite" }
      : {};
const { openStore } = await import(adapter);
const t1 = performance.now();
const store = openStore(path, options);
const t2 = performance.now();
const n =
  session === undefined
    ? store.messageCount()
    : last === "append"
      ? Number(store.appendMessage(session, { role: "user", content: APPEND_TEXT }) > 0)
      : store.getMessages(session, { last: Number(last) }).length;
store.close();
const t3 = performance.now();
reportRun(n, t0, t1, t2, t3);
