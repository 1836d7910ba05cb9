/** Which of the Node drivers load in the Node running the tests (Node 20: better-sqlite3;
 * Node 24 from devDependencies: node:sqlite — the Node 20 build of better-sqlite3 does not
 * load there). Multi-process tests run each child on the same Node and driver as the parent. */
import { betterSqlite3Driver } from "../src/better-sqlite3.js";
import { nodeSqliteDriver } from "../src/node-sqlite.js";

export function availableDriverNames(): Array<"better-sqlite3" | "node:sqlite"> {
  const found: Array<"better-sqlite3" | "node:sqlite"> = [];
  const candidates = [
    ["node:sqlite", nodeSqliteDriver],
    ["better-sqlite3", betterSqlite3Driver],
  ] as const;
  for (const [name, make] of candidates) {
    try {
      make();
      found.push(name);
      // One SQLite library per process: the first that loads is the one these tests use.
      break;
    } catch {
      // not available in this Node
    }
  }
  return found;
}
