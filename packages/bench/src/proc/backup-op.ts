/**
 * One backup job in a fresh process: `store` (store.backup from a read-only open, the driver's
 * own method: the online backup API or VACUUM INTO) or `vacuum` (VACUUM INTO through the raw
 * binding, the reference). With a fourth argument the job repeats until that many ms have
 * passed, so a writer in another process sees it running for long enough.
 * Usage: <runtime> dist/proc/backup-op.js <target> <db> <op> <dest> [min-ms]; prints one JSON line.
 */
import { rmSync, statSync } from "node:fs";
import process from "node:process";
import { loadEngine, type TargetId } from "../engine.js";
import { now } from "../stats.js";

const [target, path, op, dest, minMs] = process.argv.slice(2) as [
  TargetId,
  string,
  "store" | "vacuum",
  string,
  string?,
];
const engine = await loadEngine(target);
let ms = 0;
let repeats = 0;
let method = "vacuum-into";
const more = () => repeats === 0 || ms < Number(minMs ?? 0);
const startedAt = Date.now();
if (op === "vacuum") {
  const db = engine.openRaw(path);
  db.exec("PRAGMA busy_timeout = 60000");
  const t0 = now();
  for (; more(); repeats++) {
    rmSync(dest, { force: true });
    db.prepare("VACUUM INTO ?").run(dest);
    ms = now() - t0;
  }
  db.close();
} else {
  const store = engine.openStore(path, { readOnly: true });
  const t0 = now();
  for (; more(); repeats++) {
    method = (await store.backup(dest, { overwrite: true })).method;
    ms = now() - t0;
  }
  store.close();
}
const bytes = statSync(dest).size;
rmSync(dest, { force: true });
process.stdout.write(
  `${JSON.stringify({ op, method, ms: ms / repeats, repeats, bytes, startedAt, endedAt: Date.now() })}\n`,
);
