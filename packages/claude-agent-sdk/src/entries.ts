/**
 * What `append` accepts: each entry a transcript line, a plain JSON object with a string
 * `type`, that reads back deep-equal. Anything `JSON.stringify` would change or refuse (a cycle,
 * a function, a Date, a BigInt, NaN, undefined in an array) is refused up front, naming the
 * entry and the path inside it, so nothing of a bad batch is stored.
 */
import { InvalidInputError } from "@sessiondb/core";
import type { SessionStoreEntry } from "./sdk.js";

/** Checks a batch; returns it typed. */
export function checkEntries(entries: unknown): SessionStoreEntry[] {
  if (!Array.isArray(entries))
    throw new InvalidInputError("entries", "must be an array of transcript entries");
  entries.forEach((entry, i) => {
    const field = `entries[${i}]`;
    if (!isPlainObject(entry))
      throw new InvalidInputError(field, "must be a plain object (one transcript line)");
    if (typeof entry.type !== "string") throw new InvalidInputError(`${field}.type`, "must be a string");
    if (entry.uuid !== undefined && (typeof entry.uuid !== "string" || entry.uuid === ""))
      throw new InvalidInputError(`${field}.uuid`, "must be a non-empty string when given");
    checkJson(entry, field, new Set());
  });
  return entries as SessionStoreEntry[];
}

function checkJson(value: unknown, path: string, open: Set<object>): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value))
        throw new InvalidInputError(path, "is not a finite number (JSON has none)");
      return;
    case "object": {
      if (value === null) return;
      if (open.has(value)) throw new InvalidInputError(path, "refers back to itself (a cycle)");
      open.add(value);
      if (Array.isArray(value)) for (const [i, v] of value.entries()) checkJson(v, `${path}[${i}]`, open);
      else if (isPlainObject(value)) {
        // A key left undefined is dropped by JSON, as a transcript line drops it: allowed.
        for (const [k, v] of Object.entries(value)) if (v !== undefined) checkJson(v, `${path}.${k}`, open);
      } else throw new InvalidInputError(path, "is no plain object (it would not read back as given)");
      open.delete(value);
      return;
    }
    default:
      throw new InvalidInputError(path, `is a ${typeof value}, which JSON cannot hold`);
  }
}

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
