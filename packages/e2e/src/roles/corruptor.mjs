/**
 * Corruptor: overwrites bytes inside FTS5 data blocks (`messages_fts_data`, optionally the
 * trigram index's) in the database FILE, under live writers. Node + better-sqlite3 only.
 *
 * Only blob payload bytes are touched, never b-tree structure: the role holds the write lock
 * (BEGIN IMMEDIATE) so no one can change a page meanwhile, reads each chosen block through SQL,
 * finds the whole block exactly once in the file inside one leaf page of its table (dbstat),
 * overwrites a run in its middle, skips pages that have a newer copy in the WAL
 * (the WAL copy would mask the damage, and a WAL frame must never be altered: its checksum
 * protects other commits), and overwrites that run with random bytes. The file is read and
 * written through ONE descriptor, opened before SQLite's connection and closed after it: closing
 * any other descriptor of the file (a `readFileSync`) would drop every POSIX lock this process
 * holds on it — in DELETE mode the write lock itself, letting writers change the pages about to
 * be overwritten (sqlite.org "How To Corrupt", §2.2).
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Rng } from "./lib/prng.mjs";

/** The whole file, read through `fd` (never through a descriptor of its own: see above). */
function readWhole(fd) {
  const file = Buffer.alloc(fstatSync(fd).size);
  for (let at = 0; at < file.length; ) {
    const n = readSync(fd, file, at, file.length - at, at);
    if (n === 0) break;
    at += n;
  }
  return file;
}

/** Pages that have a frame in the WAL's current generation (salts equal to the header's). */
function walPages(walPath) {
  const pages = new Set();
  if (!existsSync(walPath)) return pages;
  const wal = readFileSync(walPath);
  if (wal.length < 32) return pages;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) {
    if (wal.readUInt32BE(off + 8) !== salt1 || wal.readUInt32BE(off + 12) !== salt2) continue;
    pages.add(wal.readUInt32BE(off));
  }
  return pages;
}

export async function corruptor({ cfg, report }) {
  const rng = new Rng(`${cfg.seed}/${cfg.name}`);
  const Database = createRequire(join(cfg.repoRoot, "package.json"))("better-sqlite3");
  const fd = openSync(cfg.store, "r+");
  const db = new Database(cfg.store);
  const done = [];
  const skipped = [];
  try {
    db.pragma("busy_timeout = 30000");
    const mode = db.pragma("journal_mode", { simple: true });
    if (mode === "wal") db.pragma("wal_checkpoint(PASSIVE)");
    db.exec("BEGIN IMMEDIATE");
    try {
      const pageSize = db.pragma("page_size", { simple: true });
      // Read the WAL only now, holding the write lock: no frame can be added until ROLLBACK.
      const inWal = mode === "wal" ? walPages(`${cfg.store}-wal`) : new Set();
      // Choose every block first, then write: nothing is read through SQLite after the damage.
      const targets = [];
      for (const table of cfg.tables ?? ["messages_fts_data"]) {
        // Only whole blocks that sit inside one leaf page of this very table, found exactly once
        // in the file: then the bytes overwritten are that block's payload, not a stale copy in
        // free space, a freelist page, or b-tree structure.
        const leaves = new Set(
          db
            .prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'")
            .all(table)
            .map((r) => r.pageno),
        );
        const rows = db
          .prepare(`SELECT id, block FROM ${table} WHERE length(block) BETWEEN 64 AND ?`)
          .all(pageSize - 100);
        // Fisher-Yates with the seeded generator; the structure record (id 10) first if asked.
        for (let i = rows.length - 1; i > 0; i--) {
          const j = rng.int(0, i);
          [rows[i], rows[j]] = [rows[j], rows[i]];
        }
        if (cfg.structure) rows.sort((a, b) => (b.id === 10) - (a.id === 10));
        targets.push({ table, leaves, rows });
      }
      const file = readWhole(fd);
      const writes = [];
      for (const { table, leaves, rows } of targets) {
        let hit = 0;
        for (const { id, block } of rows) {
          if (hit >= (cfg.blocks ?? 4)) break;
          const at = file.indexOf(block);
          const page = Math.floor(at / pageSize) + 1;
          let why;
          if (at < 0) why = "not in the main file";
          else if (file.indexOf(block, at + 1) >= 0) why = "not unique";
          else if (Math.floor((at + block.length - 1) / pageSize) + 1 !== page || !leaves.has(page))
            why = "not inside one leaf page of its table";
          else if (inWal.has(page)) why = "newer copy in the WAL";
          else if (file[(page - 1) * pageSize + (page === 1 ? 100 : 0)] !== 0x0d)
            why = "page is not a table leaf on disk";
          if (why) {
            skipped.push({ table, id: String(id), why });
            continue;
          }
          const len = Math.min(256, block.length >> 1);
          const offset = at + ((block.length - len) >> 1);
          const bytes = Buffer.alloc(len);
          for (let k = 0; k < len; k++) bytes[k] = rng.int(0, 255);
          writes.push({ table, id: String(id), page, offset, len, bytes });
          hit++;
        }
      }
      for (const w of writes) {
        writeSync(fd, w.bytes, 0, w.len, w.offset);
        const { bytes, ...record } = w;
        done.push(record);
      }
    } finally {
      db.exec("ROLLBACK");
    }
  } finally {
    db.close();
    closeSync(fd);
  }
  // The damage must be confined to FTS blobs: b-tree structure must still check out.
  const check = new Database(cfg.store, { readonly: true });
  let structural = [];
  try {
    check.pragma("busy_timeout = 30000");
    structural = check
      .pragma("integrity_check", { simple: false })
      .map((r) => Object.values(r)[0])
      .filter((l) => /Tree \d+ page|invalid page|out of order|freelist|never used/i.test(l));
  } catch (error) {
    structural = [String(error.message)];
  } finally {
    check.close();
  }
  report.event("corrupted", { done, skipped: skipped.length, skips: skipped.slice(0, 20), structural });
}
