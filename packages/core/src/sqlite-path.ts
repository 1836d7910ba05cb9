/**
 * How a store path names a database to SQLite. A store path is a file path, never a SQLite URI:
 * node:sqlite (Node and Deno) opens with URI names enabled, so `file:x.db?mode=memory` there was
 * a private in-memory database (nothing reached the disk), while better-sqlite3, bun:sqlite and
 * the file system took the same string as a file of that name. Every path goes to SQLite through
 * `sqliteFileName`, so each binding opens the file the file system sees.
 */

/** `""` and `":memory:"`: a private database SQLite keeps in memory for one connection. */
export function isInMemoryPath(path: string): boolean {
  return path === "" || path === ":memory:";
}

/** SQLite reads a name as a URI only when it begins with `file:` (the same test, ignoring case,
 * in case a build compares loosely). */
const URI_PREFIX = /^file:/i;

/** The name to give SQLite for the file at `path`: the same file, spelled so no binding reads it
 * as a URI (a relative path that begins with `file:` gets `./` in front). */
export function sqliteFileName(path: string): string {
  return URI_PREFIX.test(path) ? `./${path}` : path;
}
