/**
 * leafRows against files SQLite wrote: every value type and integer width, text and blobs long
 * enough to continue on overflow pages, the smallest and largest page sizes — each row read off
 * the pages equals what SQLite itself returns for it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { leafCellRowid, leafRows, type RecordValue, treeHolding } from "./leaf-pages.js";

const folder = mkdtempSync(join(tmpdir(), "sessiondb-leaf-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let files = 0;

/** A file with `rows` in table t (rowid alias id), closed; its bytes. */
function fileWith(pageSize: number, rows: Array<[number, unknown, unknown, unknown]>): Uint8Array {
  const path = join(folder, `t${++files}.db`);
  const db = new Database(path);
  db.pragma(`page_size = ${pageSize}`);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a, b, c)");
  const insert = db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
  db.defaultSafeIntegers(true);
  db.transaction(() => {
    for (const row of rows) insert.run(...row);
  })();
  db.close();
  return readFileSync(path);
}

function read(bytes: Uint8Array) {
  return [...leafRows((offset, length) => bytes.subarray(offset, offset + length), bytes.length)];
}

const integers = [
  0,
  1,
  -1,
  127,
  -128,
  32767,
  -32768,
  8388607,
  -8388608,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 47,
  -(2 ** 47),
  Number.MAX_SAFE_INTEGER,
];
const bigints = [2n ** 62n, -(2n ** 63n), 2n ** 63n - 1n];

/** A file of 4 000 rows (id, "row <id>", id - 1, NULL) on 4 KiB pages: many full leaf pages. */
function numberedRows(): Uint8Array {
  const rows = Array.from({ length: 4000 }, (_, i): [number, unknown, unknown, unknown] => [
    i + 1,
    `row ${i + 1}`,
    i,
    null,
  ]);
  return fileWith(4096, rows).slice();
}

/** The byte offset of the first table leaf page from the middle of the file on. */
function middleLeaf(bytes: Uint8Array): number {
  let page = Math.floor(bytes.length / 4096 / 2);
  while (bytes[(page - 1) * 4096] !== 13) page++;
  return (page - 1) * 4096;
}

function expectNumbered(found: Array<{ rowid: number; values: readonly unknown[] }>): void {
  for (const row of found) expect(row.values).toEqual([null, `row ${row.rowid}`, row.rowid - 1, null]);
}

describe("leafRows", () => {
  for (const pageSize of [512, 4096, 65536]) {
    it(`reads every row as SQLite stores it (page size ${pageSize}, overflow chains included)`, () => {
      const long = (n: number) => "päge ".repeat(n);
      const rows: Array<[number, unknown, unknown, unknown]> = [
        ...integers.map((n, i): [number, unknown, unknown, unknown] => [i + 1, n, -n, null]),
        ...bigints.map((n, i): [number, unknown, unknown, unknown] => [100 + i, n, "big", null]),
        [200, 1.5, -0.25, 1e300],
        [201, "", new Uint8Array(0), "text\u0000with a NUL"],
        [202, long(50), new Uint8Array(3000).map((_, i) => i & 0xff), long(4000)],
        [203, "😀 astral", null, long(30000)],
        [204, "\uFEFFstarts with a byte-order mark", "\uFEFF", long(2000)],
      ];
      const found = new Map(read(fileWith(pageSize, rows)).map((row) => [row.rowid, row.values]));
      // The schema's own table is on page 1, which is skipped: only t's rows.
      expect([...found.keys()].sort((a, b) => a - b)).toEqual(rows.map(([id]) => id));
      const normal = (value: unknown): RecordValue =>
        typeof value === "bigint" &&
        value >= BigInt(Number.MIN_SAFE_INTEGER) &&
        value <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(value)
          : (value as RecordValue);
      for (const [id, ...values] of rows) {
        // The rowid alias is stored as NULL; the rest as given.
        expect(found.get(id), String(id)).toEqual([null, ...values.map(normal)]);
      }
    });
  }

  it("leaves out a row whose overflow chain ends on a page of zeros (a cut file) or does not end (a page written over)", () => {
    const path = join(folder, `t${++files}.db`);
    const db = new Database(path);
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a, b, c)");
    db.prepare("INSERT INTO t VALUES (1, 'short', NULL, NULL)").run();
    db.prepare("INSERT INTO t VALUES (2, ?, NULL, NULL)").run("long ".repeat(3000));
    const overflow = db
      .prepare("SELECT pageno FROM dbstat WHERE name = 't' AND pagetype = 'overflow' ORDER BY pageno")
      .all()
      .map((row) => Number((row as { pageno: number }).pageno));
    db.close();
    const pristine = readFileSync(path);
    const last = overflow.at(-1) as number;
    expect(overflow.length).toBeGreaterThan(1);
    expect(read(pristine).map((row) => row.rowid)).toEqual([1, 2]);
    const zeroed = pristine.slice();
    zeroed.fill(0, (last - 1) * 4096, last * 4096);
    expect(read(zeroed).map((row) => row.rowid)).toEqual([1]);
    const garbage = pristine.slice();
    for (let i = 0; i < 4096; i++) garbage[(last - 1) * 4096 + i] = (i * 131 + 7) & 0xff;
    expect(read(garbage).map((row) => row.rowid)).toEqual([1]);
  });

  it("skips a cell that claims a payload larger than the file, and reads the page's other cells", () => {
    const bytes = numberedRows();
    const base = middleLeaf(bytes);
    // The cell lowest on a full page (where its content area starts): room after it for the
    // local part of a huge payload, so only its size can refuse it. Its size becomes a 7-byte
    // varint of 2^49 - 1: a number (a bigint would be refused as such).
    const lowest = (bytes[base + 5] as number) * 256 + (bytes[base + 6] as number);
    bytes.fill(0xff, base + lowest, base + lowest + 6);
    bytes[base + lowest + 6] = 0x7f;
    const found = read(bytes);
    expect(found.length).toBe(3999);
    expectNumbered(found);
  });

  it("refuses a file whose header is not SQLite's", () => {
    const bytes = fileWith(4096, [[1, "x", "y", "z"]]).slice();
    bytes[0] = 0;
    expect(() => read(bytes)).toThrow(/no SQLite header/);
  });

  it("refuses a freelist that points past the file: no page could be told live", () => {
    const bytes = fileWith(4096, [[1, "x", "y", "z"]]).slice();
    new DataView(bytes.buffer).setUint32(32, 999_999); // first trunk page
    new DataView(bytes.buffer).setUint32(36, 1); // one free page
    expect(() => read(bytes)).toThrow(/freelist/);
  });

  it("skips a damaged page and keeps reading the others", () => {
    const bytes = numberedRows();
    // Overwrite a leaf page in the middle with noise, its page type kept.
    const base = middleLeaf(bytes);
    for (let i = 1; i < 4096; i++) bytes[base + i] = (i * 131 + 7) & 0xff;
    const found = read(bytes);
    expect(found.length).toBeGreaterThan(3500);
    expect(found.length).toBeLessThan(4000);
    expectNumbered(found);
  });
});

describe("leafCellRowid and treeHolding (a cell integrity_check names)", () => {
  const bytes = numberedRows();
  const readBytes = (offset: number, length: number) => bytes.subarray(offset, offset + length);
  const leaf = middleLeaf(bytes) / 4096 + 1;
  // Table t is the file's first table: its root is page 2, an interior page over 4 000 rows.
  const root = 2;

  it("reads the rowid of a leaf cell, as SQLite orders the cells", () => {
    const first = leafCellRowid(readBytes, bytes.length, leaf, 0);
    expect(typeof first).toBe("number");
    expect(leafCellRowid(readBytes, bytes.length, leaf, 1)).toBe((first as number) + 1);
    const cells = (bytes[(leaf - 1) * 4096 + 3] as number) * 256 + (bytes[(leaf - 1) * 4096 + 4] as number);
    expect(leafCellRowid(readBytes, bytes.length, leaf, cells)).toBeUndefined();
    expect(leafCellRowid(readBytes, bytes.length, root, 0)).toBeUndefined(); // an interior page
    expect(leafCellRowid(readBytes, bytes.length, 1, 0)).toBeUndefined(); // the schema's page
  });

  it("finds the tree a leaf page belongs to by walking down from the roots", () => {
    expect(bytes[(root - 1) * 4096]).toBe(5);
    expect(treeHolding(readBytes, bytes.length, [root], leaf)).toBe(root);
    expect(treeHolding(readBytes, bytes.length, [root], bytes.length / 4096 + 5)).toBeUndefined();
    // A root that is a leaf itself holds only itself.
    expect(treeHolding(readBytes, bytes.length, [leaf], leaf - 1)).toBeUndefined();
  });
});
