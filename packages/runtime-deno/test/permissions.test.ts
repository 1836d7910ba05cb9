/**
 * The library needs read/write on the store's folder and nothing else: a child Deno process
 * runs the whole library path with exactly those flags (and fails without write). With
 * SESSIONDB_DB_SQLITE set (see db-sqlite.test.ts), the same for @db/sqlite with the flags FFI
 * needs on top: --allow-ffi --allow-env=DENO_SQLITE_PATH,DENO_SQLITE_LOCAL.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

const FIXTURE = new URL("./fixtures/library-path.ts", import.meta.url).pathname;
const IMPORT_MAP = new URL("./db-sqlite-offline/import_map.json", import.meta.url).pathname;
const WORKSPACE = new URL("../../../deno.json", import.meta.url).pathname;
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-deno-perm-"));
  dirs.push(dir);
  return dir;
}

async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...args],
    env,
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, out: decode(output.stdout), err: decode(output.stderr) };
}

const expected = {
  hits: 1,
  route: "fts",
  rebuilt: true,
  ok: true,
  count: 2,
  copied: 2,
  refused: "BACKUP_DESTINATION_REFUSED not-permitted",
};

describe("Deno permissions", () => {
  it("node:sqlite: --allow-read=<dir> --allow-write=<dir> is enough for the whole library path", async () => {
    const dir = scratch();
    const result = await run([`--allow-read=${dir}`, `--allow-write=${dir}`, FIXTURE, dir]);
    assert.equal(result.code, 0, result.err);
    assert.deepEqual({ ...JSON.parse(result.out), journal: undefined }, { ...expected, journal: undefined });
  });

  it("node:sqlite: without --allow-write a writable open is STORE_READONLY naming the flag", async () => {
    const dir = scratch();
    const result = await run([`--allow-read=${dir}`, FIXTURE, dir]);
    assert.notEqual(result.code, 0);
    // It was a SqliteError (SQLITE_ERROR) carrying Deno's message.
    assert.match(result.err, /StoreReadOnlyError: .*Deno was not given write access.*--allow-write/);
  });

  const module = Deno.env.get("SESSIONDB_DB_SQLITE");
  const library = Deno.env.get("DENO_SQLITE_PATH");
  const skip = module && library ? false : "SESSIONDB_DB_SQLITE and DENO_SQLITE_PATH are not both set";
  it("@db/sqlite: read/write on <dir> plus --allow-ffi and two env names", { skip }, async () => {
    const dir = scratch();
    const entryDir = scratch();
    const specifier = /^[a-z]+:/.test(module as string) ? module : `file://${module}`;
    // A static import, as users write it: loading code needs no --allow-read.
    const entry = join(entryDir, "entry.ts");
    writeFileSync(
      entry,
      `import { Database } from ${JSON.stringify(specifier)};\n` +
        `import { dbSqliteDriver } from ${JSON.stringify(new URL("../src/index.ts", import.meta.url).href)};\n` +
        `import { exercise } from ${JSON.stringify(new URL(FIXTURE, "file://").href)};\n` +
        "await exercise(Deno.args[0], dbSqliteDriver(Database));\n",
    );
    const result = await run(
      [
        // The entry lives in a temp dir, outside the workspace: name the workspace's config.
        "--config",
        WORKSPACE,
        // Loaded from JSR, @db/sqlite would otherwise be recorded in a new deno.lock.
        "--no-lock",
        "--import-map",
        IMPORT_MAP,
        `--allow-read=${dir}`,
        `--allow-write=${dir}`,
        // Unscoped: reading C strings through Deno.UnsafePointerView needs --allow-ffi for everything.
        "--allow-ffi",
        "--allow-env=DENO_SQLITE_PATH,DENO_SQLITE_LOCAL",
        entry,
        dir,
      ],
      { DENO_SQLITE_PATH: library as string },
    );
    assert.equal(result.code, 0, result.err);
    const report = JSON.parse(result.out);
    assert.deepEqual({ ...report, journal: undefined }, { ...expected, journal: undefined });
  });
});
