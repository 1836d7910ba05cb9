/**
 * Pages a single append writes, per table and index: what a `durability: "normal"` append pays
 * once the fsync is gone. Each WAL frame is one page written at commit, and the checkpoints that
 * copy those pages back into the database file (the only fsyncs of a NORMAL store) come as often
 * as the frames fill the WAL. Not part of `npm run bench`; HISTORY.md's page table comes from it.
 * Usage: <runtime> dist/proc/pages.js <target> <dir> [appends per side]
 *
 * Sides: the hand-written store (WAL + NORMAL, one autocommit INSERT) and `store.appendMessage`
 * with `durability: "normal"`, on fresh files of their own. A read transaction on a second
 * connection, begun before the appends, keeps every checkpoint from resetting the WAL, so all
 * the frames the appends wrote are still in it; their page numbers are mapped to tables and
 * indexes with the `dbstat` table (a SQLite built without it reports totals only).
 */
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { MessageInput } from "@sessiondb/core";
import { loadEngine, type RawDb, type TargetId } from "../engine.js";
import { handWrittenStore } from "../peers/hand-written.js";
import { sampleMessages } from "../raw-append.js";

const [target, dir, count = "500"] = process.argv.slice(2) as [TargetId, string, string?];
const calls = Number(count);
const engine = await loadEngine(target);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const SESSION = "pages";
const messages: MessageInput[] = sampleMessages(calls, 777, true);
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

function value(db: RawDb, sql: string): unknown {
  return Object.values(db.prepare(sql).get() ?? {})[0];
}

/** Pages per append of `append` on `file`, in total and by the object each page belongs to. */
function measure(file: string, append: (m: MessageInput) => void) {
  const pinned = engine.openRaw(file);
  pinned.exec("BEGIN");
  value(pinned, "SELECT count(*) FROM sqlite_master");
  const pageSize = Number(value(pinned, "PRAGMA page_size"));
  const start = statSync(`${file}-wal`).size;
  for (const m of messages) append(m);
  const wal = readFileSync(`${file}-wal`);
  const byPage = new Map<number, string>();
  const fresh = engine.openRaw(file);
  try {
    for (const row of fresh.prepare("SELECT name, pageno FROM dbstat").all())
      byPage.set(Number(row.pageno), String(row.name));
  } catch {
    // No dbstat in this SQLite: totals only.
  }
  fresh.close();
  pinned.exec("COMMIT");
  pinned.close();
  const frame = FRAME_HEADER_BYTES + pageSize;
  const first = Math.max(0, Math.ceil((start - WAL_HEADER_BYTES) / frame));
  const objects: Record<string, number> = {};
  let frames = 0;
  for (let at = WAL_HEADER_BYTES + first * frame; at + frame <= wal.length; at += frame) {
    const page = wal.readUInt32BE(at);
    const name = byPage.get(page) ?? (byPage.size ? "(freelist or new)" : "(all)");
    objects[name] = (objects[name] ?? 0) + 1;
    frames++;
  }
  const perAppend = (n: number) => Math.round((n / calls) * 10) / 10;
  const sorted = Object.entries(objects).sort((a, b) => b[1] - a[1]);
  return {
    pages: perAppend(frames),
    byObject: Object.fromEntries(sorted.map(([k, n]) => [k, perAppend(n)])),
  };
}

const peerFile = join(dir, "peer.db");
const peer = handWrittenStore(engine.openRaw(peerFile), "normal");
peer.append(SESSION, { role: "user", content: "first" });
const peerPages = measure(peerFile, (m) => peer.append(SESSION, m));
peer.close();

const storeFile = join(dir, "store.db");
const store = engine.openStore(storeFile, { durability: "normal" });
store.createSession({ id: SESSION, source: "bench" });
store.appendMessage(SESSION, { role: "user", content: "first" });
const storePages = measure(storeFile, (m) => void store.appendMessage(SESSION, m));
store.close();

rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ target, runtime: engine.runtime, calls, peer: peerPages, store: storePages })}\n`,
);
