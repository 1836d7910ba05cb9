/**
 * Rows whose content changed on disk without breaking their page: bytes written over inside a
 * message's text. integrity_check sees nothing (the record still parses, no indexed column
 * changed), foreign_key_check neither; only FTS5's integrity-check fails, with a checksum mismatch
 * that names no row. An FTS 'rebuild' would then index the garbled text and every check would
 * pass — the row swapped in as sound. So before any strategy runs, the rows are named: a
 * contentless FTS5 table in the connection's temp schema is filled from the store's own source
 * view (what the index would hold for the content as it is now) and compared with the store's
 * index through `fts5vocab`: the 'row' tables first (terms whose document or instance counts
 * differ: one pass over each index), then the 'instance' tables for those terms only, which say
 * in which rows they differ.
 *
 * A row counts damaged when an index disagrees with it and no other index vouches for it (holds
 * it — in the store's index and the rebuilt one: its docsize row — and agrees): damage to one
 * index's own pages then names no intact row the other index vouches for. Tool rows are in the
 * word index alone: one witness. An index that cannot be read (its pages damaged), a detached one
 * or one whose backfill is pending for a row is no witness for it. The comparison is bounded
 * (COMPARED_INSTANCES); on 100 000 messages it cost 1.2–1.8× the CPU time of an FTS rebuild.
 */
import type { SqliteConnection, SqliteDriver } from "../driver.js";
import { META_FTS_STALE } from "../fts/constants.js";
import { FTS_INDEXES, type FtsIndexDef } from "../fts/projection.js";
import { type BackfillWindow, backfillWindow } from "../fts/state.js";
import { MESSAGES } from "../schema/definition.js";
import type { DamagedRows } from "./damaged-cells.js";

/** What one index says of the rows it holds (in both the store's and the rebuilt index): those
 * whose terms differ, and whether it vouches for a row (it holds it and compared every term that
 * differs, and the row's agree). */
interface Witness {
  readonly disagrees: ReadonlySet<number>;
  vouchesFor(rowid: number): boolean;
}

/** Term instances (in both indexes together) whose rows are compared, per index: the differing
 * terms are taken rarest first while they fit. A row's garbled bytes make rare terms (new words,
 * new trigrams), so it is found among the first; the common terms it also touches ("the", most
 * trigrams) hold most of an index, and comparing them all cost ~10× an FTS rebuild on 100 000
 * messages. An index that had to leave terms out vouches for no row. */
const COMPARED_INSTANCES = 1_000_000;

const docs = (conn: SqliteConnection, sql: string): Set<number> =>
  new Set(
    conn
      .prepare(sql)
      .all()
      .map((row) => Number(row.doc)),
  );

/** Rows in both `a` and `b` (two fts5vocab 'instance' tables) whose instances of `terms` differ. */
function differingInstances(conn: SqliteConnection, terms: string, a: string, b: string): Set<number> {
  // The terms outside (CROSS JOIN keeps that order): each instance table is asked per term,
  // which fts5vocab answers from the index without a full scan.
  const instances = (vocab: string) =>
    `SELECT v.term, v.doc, v.col, v.offset FROM ${terms} t CROSS JOIN ${vocab} v ON v.term = t.term`;
  return docs(
    conn,
    `SELECT doc FROM (${instances(a)} EXCEPT ${instances(b)}) UNION SELECT doc FROM (${instances(b)} EXCEPT ${instances(a)})`,
  );
}

/** Compare `def`'s index in the store with one rebuilt from its source view now. */
function witness(conn: SqliteConnection, def: FtsIndexDef, window: BackfillWindow | undefined): Witness {
  const rebuilt = `sessiondb_repair_${def.table}`;
  const columns = def.columns.map((column) => column.name).join(", ");
  conn.exec(
    `CREATE VIRTUAL TABLE temp.${rebuilt} USING fts5(${columns}, content='', tokenize='${def.tokenize}')`,
  );
  // Rows a pending backfill has not indexed yet are not the store index's to vouch for.
  const pending = window ? ` WHERE id <= ${window.progress} OR id > ${window.highWater}` : "";
  conn.exec(
    `INSERT INTO temp.${rebuilt}(rowid, ${columns}) SELECT id, ${columns} FROM main.${def.view}${pending}`,
  );
  const vocab = (schema: string, table: string, type: string) => {
    const name = `temp.${rebuilt}_${schema}_${type}`;
    conn.exec(`CREATE VIRTUAL TABLE ${name} USING fts5vocab(${schema}, ${table}, ${type})`);
    return name;
  };
  const storeRows = vocab("main", def.table, "row");
  const nowRows = vocab("temp", rebuilt, "row");
  const terms = `temp.${rebuilt}_terms`;
  conn.exec(`CREATE TABLE ${terms}(term TEXT PRIMARY KEY)`);
  const counts = (vocabRows: string) => `SELECT term, doc, cnt FROM ${vocabRows}`;
  const differingTerms = conn
    .prepare(
      `SELECT term, sum(cnt) AS instances FROM (SELECT term, cnt FROM (${counts(storeRows)} EXCEPT ${counts(nowRows)}) UNION ALL SELECT term, cnt FROM (${counts(nowRows)} EXCEPT ${counts(storeRows)})) GROUP BY term ORDER BY instances`,
    )
    .all();
  const addTerm = conn.prepare(`INSERT INTO ${terms} VALUES (?)`);
  let budget = COMPARED_INSTANCES;
  let complete = true;
  for (const row of differingTerms) {
    budget -= Number(row.instances);
    if (budget < 0) {
      complete = false;
      break;
    }
    addTerm.run(row.term as string);
  }
  const inStore = conn.prepare(`SELECT 1 FROM main.${def.table}_docsize WHERE id = ?`);
  const inRebuilt = conn.prepare(`SELECT 1 FROM temp.${rebuilt}_docsize WHERE id = ?`);
  // A docsize table that stops reading mid-way holds nothing more as far as the caller knows.
  const holds = (rowid: number) => {
    try {
      return inStore.get(rowid) !== undefined && inRebuilt.get(rowid) !== undefined;
    } catch {
      return false;
    }
  };
  const differing = differingInstances(
    conn,
    terms,
    vocab("main", def.table, "instance"),
    vocab("temp", rebuilt, "instance"),
  );
  const disagrees = new Set([...differing].filter(holds));
  return { disagrees, vouchesFor: (rowid) => complete && !disagrees.has(rowid) && holds(rowid) };
}

/** The store's FTS indexes (by table name) and their state, read from the file. */
function indexesOf(conn: SqliteConnection): { defs: FtsIndexDef[]; window: BackfillWindow | undefined } {
  const present = new Set(
    conn
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
      .all()
      .map((row) => String(row.name)),
  );
  const meta = new Map(
    conn
      .prepare("SELECT key, value FROM state_meta")
      .all()
      .map((row) => [String(row.key), String(row.value)] as const),
  );
  // A detached index no longer follows the table: it vouches for nothing.
  if (meta.has(META_FTS_STALE)) return { defs: [], window: undefined };
  return { defs: FTS_INDEXES.filter((def) => present.has(def.table)), window: backfillWindow(meta) };
}

/** Add to `rows` the messages whose content the store's FTS indexes contradict (see the module
 * comment). `path` is a scratch copy: the comparison lives in the connection's temp schema and
 * leaves the file as it was. Nothing is added when no index can be read. */
export function addGarbledRows(driver: SqliteDriver, path: string, rows: DamagedRows): void {
  let conn: SqliteConnection;
  try {
    conn = driver.open(path, { readOnly: false });
  } catch {
    return; // a file that does not open: the strategies' own checks judge it
  }
  try {
    let found: { defs: FtsIndexDef[]; window: BackfillWindow | undefined };
    try {
      found = indexesOf(conn);
    } catch {
      return; // a schema or state table that does not read: no index can be trusted
    }
    const witnesses: Witness[] = [];
    for (const def of found.defs) {
      try {
        witnesses.push(witness(conn, def, found.window));
      } catch {
        // this index's pages do not read: it is no witness
      }
    }
    const candidates = new Set(witnesses.flatMap((w) => [...w.disagrees]));
    for (const rowid of candidates) {
      if (witnesses.some((w) => w.vouchesFor(rowid))) continue;
      const set = rows.get(MESSAGES.name) ?? new Set<number>();
      set.add(rowid);
      rows.set(MESSAGES.name, set);
    }
  } finally {
    conn.close();
  }
}
