/** Hermes's column values as JSON and as the types its columns hold. */
import { Buffer } from "node:buffer";
import type { Json } from "@sessiondb/core";
import type { Row, SqlValue } from "@sessiondb/core/driver";

/** A row with every value JSON: an integer past 2^53 as its decimal string, a blob as
 * `{ base64 }`, so a row kept as an original reads back as it was. */
export function jsonRow(row: Row): { [column: string]: Json } {
  const out: { [column: string]: Json } = {};
  for (const [column, value] of Object.entries(row)) out[column] = jsonValue(value);
  return out;
}

function jsonValue(value: SqlValue): Json {
  if (typeof value === "bigint")
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString("base64") };
  return value;
}

export function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A finite number (REAL seconds, a count), or undefined. */
export function num(value: unknown): number | undefined {
  const n = typeof value === "bigint" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}

/** A count: a non-negative number, 0 for anything else. */
export function count(value: unknown): number {
  const n = num(value);
  return n !== undefined && n > 0 ? n : 0;
}
