/**
 * Whole-process cold open, store side: the runtime loads its sessiondb adapter, opens the
 * store, counts messages, prints the count and closes. Module loading is part of the figure.
 * Usage: <runtime> dist/proc/open-store.js <target> <db>
 */
import process from "node:process";

const [target, path] = process.argv.slice(2) as [string, string];
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
const store = openStore(path, options);
const n = store.messageCount();
store.close();
process.stdout.write(`${n}\n`);
