/**
 * Offline stand-in for `jsr:@denosaurs/plug@1`, which @db/sqlite 0.13 uses only to download a
 * prebuilt SQLite when DENO_SQLITE_PATH is unset. Offline there is nothing to download.
 */
export function dlopen(): never {
  throw new Error(
    "offline: set DENO_SQLITE_PATH to a SQLite shared library (e.g. /usr/lib/x86_64-linux-gnu/libsqlite3.so.0)",
  );
}
