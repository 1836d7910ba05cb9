/**
 * `importFrom(store, format, roots?, options?)`: one call for both kinds of format. A LineFormat's
 * session files are read by engine.ts, a DatabaseFormat's database by database.ts; both give the
 * same ImportResult, so a caller (the CLI) treats every format alike.
 */
import type { DatabaseFormat, LineFormat } from "../mapped.js";
import { importDatabase } from "./database.js";
import { importLines } from "./engine.js";
import type { ImportOptions, ImportResult, ImportTarget } from "./result.js";

/** Either kind of format. */
export type ImportFormat = LineFormat | DatabaseFormat;

export function isDatabaseFormat(format: ImportFormat): format is DatabaseFormat {
  return (format as { kind?: unknown }).kind === "database";
}

export function importFrom(
  store: ImportTarget,
  format: ImportFormat,
  roots?: readonly string[],
  options: ImportOptions = {},
): Promise<ImportResult> {
  return isDatabaseFormat(format)
    ? importDatabase(store, format, roots, options)
    : importLines(store, format, roots, options);
}
