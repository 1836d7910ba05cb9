#!/usr/bin/env node
/**
 * `npm run test:db-sqlite`: the driver contract, the conformance suite and the permissions
 * test on @db/sqlite (FFI), once per SQLite library worth testing, each in its own `deno test`
 * process (one SQLite library per process):
 *
 * 1. the current release, compiled from the amalgamation the better-sqlite3 package ships, into
 *    node_modules/.cache/sessiondb/ under a key of the source's hash and the compiler flags, so
 *    it is rebuilt only when that source changes;
 * 2. the system's libsqlite3.so.0 when it is Debian 12's 3.40.1 (inside the WAL-reset range, and
 *    its FTS5 corruption messages do not name FTS5).
 *
 * @db/sqlite itself comes from SESSIONDB_DB_SQLITE (a specifier or a checkout's mod.ts), else a
 * vendored copy of its source beside this repository, else JSR when reachable. Whatever cannot be
 * found is skipped with one line saying why; a failing run fails the script.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const ROOT = join(PACKAGE, "..", "..");
const VENDORED = join(ROOT, "..", "shared", "vendor", "db-sqlite-0.13.0", "mod.ts");
const JSR = "jsr:@db/sqlite@0.13";
const IMPORT_MAP = join(PACKAGE, "test", "db-sqlite-offline", "import_map.json");
const CACHE = join(ROOT, "node_modules", ".cache", "sessiondb");
/** SQLite's defaults plus what sessiondb and its tests use (FTS5; dbstat, which the repair tests
 * read pages with, is on in better-sqlite3's and Debian's builds too). -O1, not -O2: a fresh
 * clone compiles the amalgamation once, and -O2 took 60 s of CPU where -O1 takes 25 s (2026-12-07,
 * 2 cores), while the tests on it spent the same CPU either way; the optimizer changes no result. */
const CFLAGS = [
  "-O1",
  "-shared",
  "-fPIC",
  "-DSQLITE_ENABLE_FTS5",
  "-DSQLITE_ENABLE_DBSTAT_VTAB",
  "-DSQLITE_ENABLE_MATH_FUNCTIONS",
  "-DSQLITE_THREADSAFE=1",
];
const LIBS = ["-lpthread", "-ldl", "-lm"];
/** The system library whose behaviour run 2 pins. */
const SYSTEM_SQLITE = "3.40.1";

const say = (line) => console.log(`[db-sqlite] ${line}`);

/** Where @db/sqlite comes from, and whether it needs the offline import map; or why not. */
async function locateModule() {
  const chosen = process.env.SESSIONDB_DB_SQLITE;
  if (chosen) return { specifier: chosen, local: !/^[a-z]+:/.test(chosen) };
  if (existsSync(VENDORED)) return { specifier: VENDORED, local: true };
  try {
    const response = await fetch("https://jsr.io/@db/sqlite/meta.json", {
      signal: AbortSignal.timeout(3000),
    });
    if (response.ok) return { specifier: JSR, local: false };
    return { skip: `no vendored copy at ${VENDORED} and jsr.io answered ${response.status}` };
  } catch (error) {
    return {
      skip: `no vendored copy at ${VENDORED} and jsr.io is unreachable (${error.cause?.code ?? error.name})`,
    };
  }
}

/** The current SQLite as a shared library, compiled once per amalgamation; or why not. */
function currentSqlite() {
  let source;
  try {
    const packageJson = createRequire(import.meta.url).resolve("better-sqlite3/package.json");
    source = join(dirname(packageJson), "deps", "sqlite3");
  } catch {
    return { skip: "the better-sqlite3 package (whose SQLite amalgamation is compiled) is not installed" };
  }
  const code = readFileSync(join(source, "sqlite3.c"));
  const version = /#define SQLITE_VERSION\s+"([\d.]+)"/.exec(
    readFileSync(join(source, "sqlite3.h"), "utf8"),
  )?.[1];
  if (!version) throw new Error(`no SQLITE_VERSION in ${join(source, "sqlite3.h")}`);
  const key = createHash("sha256").update(code).update(CFLAGS.join(" ")).digest("hex").slice(0, 16);
  const dir = join(CACHE, `sqlite-${version}-${key}`);
  const library = join(dir, "libsqlite3.so");
  if (existsSync(library)) {
    say(`SQLite ${version}: cached ${relative(ROOT, library)}`);
    return { version, library };
  }
  mkdirSync(dir, { recursive: true });
  const partial = `${library}.${process.pid}`;
  const args = [...CFLAGS, join(source, "sqlite3.c"), "-o", partial, ...LIBS];
  say(
    `SQLite ${version}: compiling ${relative(ROOT, join(source, "sqlite3.c"))} (once per amalgamation): cc ${args.join(" ")}`,
  );
  const started = Date.now();
  const cc = spawnSync("cc", args, { stdio: "inherit" });
  if (cc.error?.code === "ENOENT") return { skip: "no C compiler (cc) on PATH to build the current SQLite" };
  if (cc.status !== 0) throw new Error(`cc failed (${cc.error ?? `exit ${cc.status}`})`);
  // Renamed into place only when complete, so an interrupted build is never taken for a cached one.
  renameSync(partial, library);
  say(`SQLite ${version}: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const old of readdirSync(CACHE)) {
    if (old.startsWith("sqlite-") && join(CACHE, old) !== dir)
      rmSync(join(CACHE, old), { recursive: true, force: true });
  }
  return { version, library };
}

/** The dynamic linker's libsqlite3.so.0 for this machine's architecture, or known paths. */
function findSystemLibrary() {
  const arch = { x64: "x86-64", arm64: "AArch64" }[process.arch];
  for (const ldconfig of ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]) {
    const listed = spawnSync(ldconfig, ["-p"], { encoding: "utf8" });
    if (listed.status !== 0) continue;
    for (const line of listed.stdout.split("\n")) {
      const match = /^\s*libsqlite3\.so\.0 \(([^)]*)\) => (\S+)/.exec(line);
      if (match && (!arch || match[1].includes(arch))) return match[2];
    }
    return undefined;
  }
  const triplet = { x64: "x86_64-linux-gnu", arm64: "aarch64-linux-gnu" }[process.arch];
  const known = [`/usr/lib/${triplet}`, `/lib/${triplet}`, "/usr/lib64", "/usr/lib"].map(
    (d) => `${d}/libsqlite3.so.0`,
  );
  return known.find((path) => existsSync(path));
}

/** The version a SQLite library reports (sqlite3_libversion, through Deno's FFI). */
function libraryVersion(library) {
  const probe = spawnSync(
    "deno",
    [
      "eval",
      "--no-config",
      `const { symbols } = Deno.dlopen(${JSON.stringify(library)}, { sqlite3_libversion: { parameters: [], result: "pointer" } });` +
        "console.log(Deno.UnsafePointerView.getCString(symbols.sqlite3_libversion()));",
    ],
    { encoding: "utf8" },
  );
  if (probe.status !== 0) throw new Error(`could not load ${library}: ${probe.stderr}`);
  return probe.stdout.trim();
}

/** Debian 12's libsqlite3-0, when this machine has it; or why not. */
function systemSqlite() {
  const library = findSystemLibrary();
  if (!library) return { skip: "no system libsqlite3.so.0 (Debian's libsqlite3-0)" };
  const version = libraryVersion(library);
  if (version !== SYSTEM_SQLITE)
    return {
      skip: `the system's ${library} is SQLite ${version}; this run pins Debian 12's ${SYSTEM_SQLITE}`,
    };
  say(`SQLite ${version}: ${library}`);
  return { version, library };
}

/** One `deno test` process on `library`, told what that SQLite must show: its output goes on to
 * ours as it comes and is kept, so a failing run's errors can be shown again at the end. */
function runOn(module, library, expect) {
  const args = [
    "test",
    // A JSR download would otherwise write a deno.lock into the repository.
    "--no-lock",
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-env=TMPDIR,TMP,TEMP,SESSIONDB_DB_SQLITE,SESSIONDB_DB_SQLITE_EXPECT,DENO_SQLITE_PATH,DENO_SQLITE_LOCAL,NODE_V8_COVERAGE,SESSIONDB_SEED,SESSIONDB_SOAK_RUNS,SESSIONDB_SOAK_MINUTES",
    "--allow-ffi",
    ...(module.local ? ["--import-map", IMPORT_MAP] : []),
    "test/db-sqlite.test.ts",
    "test/permissions.test.ts",
  ];
  const env = {
    ...process.env,
    SESSIONDB_DB_SQLITE: module.specifier,
    SESSIONDB_DB_SQLITE_EXPECT: JSON.stringify(expect),
    DENO_SQLITE_PATH: library,
  };
  delete env.DENO_SQLITE_LOCAL; // it would make @db/sqlite ignore DENO_SQLITE_PATH
  return new Promise((resolve, reject) => {
    const child = spawn("deno", args, { cwd: PACKAGE, env, stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      from.on("data", (chunk) => {
        output.push(chunk);
        to.write(chunk);
      });
    }
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ ok: code === 0, how: signal ? `killed by ${signal}` : `exit ${code}`, output }),
    );
  });
}

/** What a failed run said about its failures: deno's ERRORS section on, else its last lines. */
function failureReport(output) {
  // Without the colours, so the marker is found and the lines read in a plain log.
  const text = stripVTControlCharacters(Buffer.concat(output).toString("utf8"));
  const at = text.lastIndexOf("\n ERRORS \n");
  if (at !== -1) return text.slice(at + 1);
  return text.split("\n").slice(-60).join("\n");
}

const module = await locateModule();
if (module.skip) {
  say(`skipping every @db/sqlite run: ${module.skip}`);
  process.exit(0);
}
say(`@db/sqlite from ${module.specifier}`);

const runs = [
  {
    label: "current SQLite",
    find: currentSqlite,
    // Outside the WAL-reset range: new stores are WAL; FTS5 names itself in corruption messages.
    expect: (version) => ({ sqlite: version, journal: "wal", ftsCorruptionNamed: true }),
  },
  {
    label: "Debian's libsqlite3-0",
    find: systemSqlite,
    // Inside the WAL-reset range: new stores stay in DELETE mode; FTS5 corruption reads as
    // SQLite's generic "database disk image is malformed".
    expect: (version) => ({ sqlite: version, journal: "delete", ftsCorruptionNamed: false }),
  },
];

const failures = [];
for (const run of runs) {
  const found = run.find();
  if (found.skip) {
    say(`skipping ${run.label}: ${found.skip}`);
    continue;
  }
  say(`${run.label}: deno test on SQLite ${found.version} (${found.library})`);
  const outcome = await runOn(module, found.library, run.expect(found.version));
  if (!outcome.ok) failures.push({ label: `${run.label} (SQLite ${found.version})`, ...outcome });
}
// Shown again last: a CI log's tail is often all a reader gets of a long run.
for (const failure of failures) {
  say(`FAILED: ${failure.label}, ${failure.how}; what it reported:`);
  console.log(failureReport(failure.output));
}
process.exit(failures.length === 0 ? 0 : 1);
