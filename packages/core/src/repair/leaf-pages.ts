/**
 * Rows read straight off the table leaf pages of a database file, for the salvage. SQLite finds
 * a row by walking its table's b-tree from the root; one damaged interior page hides every leaf
 * below it although their rows are intact. Here each page is read on its own, as the file format
 * lays it out (sqlite.org/fileformat2.html): a table leaf page (type 13) holds cells of (payload
 * size, rowid, record), a record is a header of serial types followed by the values, and a long
 * payload goes on over a chain of overflow pages.
 *
 * Which table a row belongs to is not written on its page: the caller tells that by the row's
 * shape (salvage.ts). Pages on the freelist are skipped — their rows were deleted — and so is
 * page 1 (the schema's own table). A page or cell that does not parse within the page's bounds is
 * skipped, never guessed at; a header or freelist that does not parse stops the whole read,
 * since nothing then says which pages hold live rows.
 */

import { utf8Text } from "../model/rows.js";

/** A value as a record stores it. */
export type RecordValue = null | number | bigint | string | Uint8Array;

export interface LeafRow {
  readonly rowid: number;
  readonly values: readonly RecordValue[];
}

/** Reads `length` bytes at `offset` of the file (fewer at its end). */
export type ReadBytes = (offset: number, length: number) => Uint8Array;

const TABLE_LEAF = 13;
const TABLE_INTERIOR = 5;
const HEADER = "SQLite format 3\u0000";
const UTF8 = 1;

class Unparsable extends Error {}

function fail(what: string): never {
  throw new Unparsable(what);
}

const u16 = (b: Uint8Array, at: number) =>
  ((b[at] ?? fail("past the page")) << 8) | (b[at + 1] ?? fail("past the page"));
const u32 = (b: Uint8Array, at: number) => u16(b, at) * 65536 + u16(b, at + 2);

/** A varint at `at`: its value (a bigint past 2^53) and its length in bytes. */
function varint(b: Uint8Array, at: number): [number | bigint, number] {
  let value = 0n;
  for (let i = 0; i < 9; i++) {
    const byte = b[at + i] ?? fail("a varint runs past its bytes");
    if (i === 8) return [narrow((value << 8n) | BigInt(byte)), 9];
    value = (value << 7n) | BigInt(byte & 0x7f);
    if (byte < 0x80) return [narrow(value), i + 1];
  }
  return fail("unreachable");
}

const narrow = (value: bigint): number | bigint => {
  const signed = BigInt.asIntN(64, value);
  return signed >= BigInt(Number.MIN_SAFE_INTEGER) && signed <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(signed)
    : signed;
};

/** The values of a record (the payload of a table leaf cell). */
function decodeRecord(payload: Uint8Array): RecordValue[] {
  const [headerSize, first] = varint(payload, 0);
  if (typeof headerSize !== "number" || headerSize < first || headerSize > payload.length)
    fail("a record header out of bounds");
  const types: number[] = [];
  for (let at = first; at < headerSize; ) {
    const [type, length] = varint(payload, at);
    if (typeof type !== "number" || type < 0 || type === 10 || type === 11) fail("a reserved serial type");
    types.push(type);
    at += length;
  }
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const values: RecordValue[] = [];
  let at = headerSize;
  const take = (length: number) => {
    if (at + length > payload.length) fail("a value runs past its record");
    const start = at;
    at += length;
    return start;
  };
  for (const type of types) {
    if (type === 0) values.push(null);
    else if (type === 8 || type === 9) values.push(type - 8);
    else if (type <= 6) {
      const length = [0, 1, 2, 3, 4, 6, 8][type] as number;
      const start = take(length);
      let value = 0n;
      for (let i = 0; i < length; i++) value = (value << 8n) | BigInt(payload[start + i] as number);
      values.push(narrow(BigInt.asIntN(length * 8, value)));
    } else if (type === 7) values.push(view.getFloat64(take(8)));
    else if (type % 2 === 0) {
      const length = (type - 12) / 2;
      const start = take(length);
      values.push(payload.slice(start, start + length));
    } else {
      const length = (type - 13) / 2;
      const start = take(length);
      values.push(utf8Text(payload.subarray(start, start + length)));
    }
  }
  if (at !== payload.length) fail("a record longer than its values");
  return values;
}

interface FileLayout {
  readonly pageSize: number;
  readonly usable: number;
  readonly pages: number;
}

function layoutOf(read: ReadBytes, fileSize: number): FileLayout {
  const header = read(0, 100);
  if (utf8Text(header.subarray(0, 16)) !== HEADER) fail("no SQLite header");
  const raw = u16(header, 16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) fail("a bad page size");
  if (u32(header, 56) !== UTF8) fail("a text encoding other than UTF-8");
  const usable = pageSize - (header[20] as number);
  if (usable < 480) fail("a bad reserved size");
  return { pageSize, usable, pages: Math.floor(fileSize / pageSize) };
}

/** Every page on the freelist (trunks and leaves); throws when the list does not parse. */
function freePages(read: ReadBytes, layout: FileLayout): Set<number> {
  const header = read(0, 100);
  const expected = u32(header, 36);
  const free = new Set<number>();
  const valid = (page: number) => page >= 2 && page <= layout.pages && !free.has(page);
  for (let trunk = u32(header, 32); trunk !== 0; ) {
    if (!valid(trunk)) fail("a freelist trunk out of bounds or seen twice");
    free.add(trunk);
    const page = read((trunk - 1) * layout.pageSize, layout.pageSize);
    const count = u32(page, 4);
    if (count > layout.usable / 4 - 2) fail("a freelist trunk with too many leaves");
    for (let i = 0; i < count; i++) {
      const leaf = u32(page, 8 + 4 * i);
      if (!valid(leaf)) fail("a freelist leaf out of bounds or seen twice");
      free.add(leaf);
    }
    trunk = u32(page, 0);
  }
  if (free.size !== expected) fail(`a freelist of ${free.size} pages where the header says ${expected}`);
  return free;
}

/** How many values the record starting `local` declares, read from its header; undefined when
 * the header runs past `local` (it goes on in an overflow page) or does not parse. */
function declaredValues(local: Uint8Array): number | undefined {
  try {
    const [headerSize, first] = varint(local, 0);
    if (typeof headerSize !== "number" || headerSize > local.length) return undefined;
    let count = 0;
    for (let at = first; at < headerSize; count++) at += varint(local, at)[1];
    return count;
  } catch (error) {
    if (error instanceof Unparsable) return undefined;
    throw error;
  }
}

/** The payload of the cell at `at` on `page`, its overflow chain followed — unless the record
 * declares a number of values `wanted` refuses (then undefined, no overflow page read). */
function cellPayload(
  read: ReadBytes,
  layout: FileLayout,
  page: Uint8Array,
  at: number,
  wanted: (values: number) => boolean,
): { rowid: number | bigint; payload: Uint8Array } | undefined {
  const [size, sizeLength] = varint(page, at);
  const [rowid, rowidLength] = varint(page, at + sizeLength);
  if (typeof size !== "number" || size < 0) fail("a payload size out of bounds");
  const start = at + sizeLength + rowidLength;
  const { usable } = layout;
  const most = usable - 35;
  const least = Math.floor(((usable - 12) * 32) / 255) - 23;
  let local = size;
  if (size > most) {
    const k = least + ((size - least) % (usable - 4));
    local = k <= most ? k : least;
  }
  if (start + local > usable) fail("a cell past its page");
  // A size the file cannot hold is a damaged cell, not a reason to allocate it.
  if (size - local > (layout.pages - 1) * (usable - 4)) fail("a payload larger than the file");
  const declared = declaredValues(page.subarray(start, start + local));
  if (declared !== undefined && !wanted(declared)) return undefined;
  const payload = new Uint8Array(size);
  payload.set(page.subarray(start, start + local));
  let filled = local;
  const seen = new Set<number>();
  let next = local < size ? u32(page, start + local) : 0;
  while (filled < size) {
    if (next < 2 || next > layout.pages || seen.has(next)) fail("an overflow chain out of bounds");
    seen.add(next);
    const overflow = read((next - 1) * layout.pageSize, layout.pageSize);
    // A page of zeros is what a cut file reads as (a copy pads it): no overflow page is one.
    if (overflow.length < layout.pageSize || overflow.every((byte) => byte === 0))
      fail("an empty overflow page");
    const chunk = Math.min(usable - 4, size - filled);
    payload.set(overflow.subarray(4, 4 + chunk), filled);
    filled += chunk;
    next = u32(overflow, 0);
  }
  // The last page of a chain points nowhere; anything else is a page that is not what it was.
  if (next !== 0) fail("an overflow chain that does not end");
  return { rowid, payload };
}

/** The rows of one page, when it is a table leaf; cells that do not parse are left out. */
function leafRowsOf(
  read: ReadBytes,
  layout: FileLayout,
  number: number,
  wanted: (values: number) => boolean,
): LeafRow[] {
  const page = read((number - 1) * layout.pageSize, layout.pageSize);
  if (page.length < layout.pageSize || page[0] !== TABLE_LEAF) return [];
  const cells = u16(page, 3);
  const pointers = 8;
  if (pointers + 2 * cells > layout.usable) return [];
  const rows: LeafRow[] = [];
  for (let i = 0; i < cells; i++) {
    const at = u16(page, pointers + 2 * i);
    if (at < pointers + 2 * cells || at >= layout.usable) continue;
    try {
      const cell = cellPayload(read, layout, page, at, wanted);
      if (!cell || typeof cell.rowid !== "number") continue;
      rows.push({ rowid: cell.rowid, values: decodeRecord(cell.payload) });
    } catch (error) {
      if (!(error instanceof Unparsable)) throw error;
    }
  }
  return rows;
}

/**
 * Every row on a table leaf page of the file that `read` reads (`fileSize` bytes), page by page,
 * except those on free pages and on page 1 — and, with `wanted`, only rows whose record declares
 * a number of values it accepts (the others are not decoded: most pages of a store hold its
 * full-text index). Throws when the file's header or freelist does not parse: then no page can
 * be told live.
 */
export function* leafRows(
  read: ReadBytes,
  fileSize: number,
  wanted: (values: number) => boolean = () => true,
): Generator<LeafRow> {
  const layout = layoutOf(read, fileSize);
  const free = freePages(read, layout);
  for (let page = 2; page <= layout.pages; page++) {
    if (free.has(page)) continue;
    yield* leafRowsOf(read, layout, page, wanted);
  }
}

/** A b-tree page of the file, or undefined when `number` is past its end or page 1 (whose header
 * shifts its layout: it holds the schema, never a store table's rows). */
function pageAt(read: ReadBytes, layout: FileLayout, number: number): Uint8Array | undefined {
  if (number < 2 || number > layout.pages) return undefined;
  const page = read((number - 1) * layout.pageSize, layout.pageSize);
  return page.length < layout.pageSize ? undefined : page;
}

/** The rowid in cell `cell` (from 0) of page `number` when that page is a table leaf and the cell
 * parses that far; undefined otherwise. Only the cell's head is read, never its record. */
export function leafCellRowid(
  read: ReadBytes,
  fileSize: number,
  number: number,
  cell: number,
): number | undefined {
  try {
    const layout = layoutOf(read, fileSize);
    const page = pageAt(read, layout, number);
    if (!page || page[0] !== TABLE_LEAF || cell < 0 || cell >= u16(page, 3)) return undefined;
    const at = u16(page, 8 + 2 * cell);
    if (at >= layout.usable) return undefined;
    const [, sizeLength] = varint(page, at);
    const [rowid] = varint(page, at + sizeLength);
    return typeof rowid === "number" ? rowid : undefined;
  } catch (error) {
    if (error instanceof Unparsable) return undefined;
    throw error;
  }
}

/** Which of the table b-trees rooted at `roots` holds page `number` (walked down their interior
 * pages; a page that does not parse ends that branch); undefined when none does. */
export function treeHolding(
  read: ReadBytes,
  fileSize: number,
  roots: readonly number[],
  number: number,
): number | undefined {
  let layout: FileLayout;
  try {
    layout = layoutOf(read, fileSize);
  } catch (error) {
    if (error instanceof Unparsable) return undefined;
    throw error;
  }
  const seen = new Set<number>();
  for (const root of roots) {
    const pending = [root];
    while (pending.length > 0) {
      const at = pending.pop() as number;
      if (at === number) return root;
      if (seen.has(at)) continue;
      seen.add(at);
      try {
        const page = pageAt(read, layout, at);
        if (!page || page[0] !== TABLE_INTERIOR) continue;
        const cells = u16(page, 3);
        pending.push(u32(page, 8));
        for (let i = 0; i < cells && 12 + 2 * i < layout.usable; i++)
          pending.push(u32(page, u16(page, 12 + 2 * i)));
      } catch (error) {
        if (!(error instanceof Unparsable)) throw error;
      }
    }
  }
  return undefined;
}
