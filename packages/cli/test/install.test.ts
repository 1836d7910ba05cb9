/**
 * The CLI and the libraries as a new user meets them: packed tarballs installed into fresh
 * folders, then run the way the README's Install section says — a global install on the host
 * Node (20), npx, bunx, deno run with the documented permissions — against a real store. Plus a
 * TypeScript consumer with skipLibCheck off, require() of the ESM packages, and a reader that
 * goes away (`| head -1`) on every runtime.
 *
 * Everything is installed by name from a registry on 127.0.0.1 serving the tarballs and the
 * lockfile's packages from the npm cache (test/packed.ts): no network. One global install per run.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusStore, ROOT_BIN, tempDir } from "./helpers.js";
import {
  HOST_NODE,
  localPrebuilds,
  localRegistry,
  npmSetup,
  packAll,
  REPO,
  type Result,
  run,
  userEnv,
} from "./packed.js";

const BUN = path.join(ROOT_BIN, "bun");
/** Bun from npm installs bunx as a second name of its binary (bin/bunx.exe). */
const BUNX = path.join(ROOT_BIN, "bunx");
const DENO = path.join(ROOT_BIN, "deno");
const NODE24 = path.join(ROOT_BIN, "node");
const README = fs.readFileSync(path.join(REPO, "packages", "cli", "README.md"), "utf8");

/** The permission flags of the README's `deno run … npm:sessiondb` line: what is documented is
 * what is tested. */
const DENO_FLAGS = (() => {
  const line = /deno run ((?:--allow-[\w-]+(?:=\S+)? )+)npm:sessiondb/.exec(README);
  if (!line) throw new Error("the CLI README has no `deno run --allow-… npm:sessiondb` line");
  return (line[1] as string).trim().split(/\s+/);
})();

let dir: string;
let store: string;
let messages: number;
let token: string;
let showId: string;
let global: string;
/** A global install whose better-sqlite3 was never built (install scripts off). */
let unbuilt: string;
let project: string;
let consumer: string;
let closeRegistry: () => Promise<void>;
let registryUrl: string;
let npm: ReturnType<typeof npmSetup>;
let version: string;

/** The process ended as a CLI that stopped for a closed pipe must: exit 0, nothing on stderr. */
function expectQuietEnd(r: Result): void {
  expect(r.stderr, r.stderr).toBe("");
  expect(r.signal).toBeNull();
  expect(r.code).toBe(0);
}

/** `command | head -1` under pipefail: the status is the CLI's, stderr is the CLI's. */
function headOne(command: string[], cwd: string): Promise<Result> {
  const quoted = command.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return run("bash", ["-o", "pipefail", "-c", `${quoted} | head -1`], { cwd, env: userEnv() });
}

beforeAll(async () => {
  dir = tempDir();
  store = path.join(dir, "store", "state.db");
  fs.mkdirSync(path.dirname(store));
  const corpus = corpusStore(store, 1_000, 5);
  messages = corpus.messages;
  token = corpus.tokens.find((t) => t.indexedByFts)?.token as string;
  version = JSON.parse(fs.readFileSync(path.join(REPO, "packages", "cli", "package.json"), "utf8")).version;

  const tarballs = await packAll(fs.mkdtempSync(path.join(dir, "tgz-")));
  const registry = await localRegistry(tarballs);
  closeRegistry = registry.close;
  registryUrl = registry.url;
  npm = npmSetup(dir, registry.url, await localPrebuilds(path.join(dir, "prebuilds")));

  global = path.join(dir, "global");
  unbuilt = path.join(dir, "global-unbuilt");
  project = path.join(dir, "project");
  consumer = path.join(dir, "consumer");
  for (const folder of [project, consumer]) {
    fs.mkdirSync(folder);
    const manifest = { name: "fresh", private: true, allowScripts: { "better-sqlite3": true } };
    fs.writeFileSync(path.join(folder, "package.json"), JSON.stringify(manifest));
  }
  const installs = await Promise.all([
    run(
      "npm",
      ["install", "--global", `--prefix=${unbuilt}`, "--ignore-scripts", ...npm.flags, "sessiondb"],
      {
        env: npm.env,
      },
    ),
    run("npm", ["install", "--global", `--prefix=${global}`, npm.allowScripts, ...npm.flags, "sessiondb"], {
      env: npm.env,
    }),
    run("npm", ["install", ...npm.flags, "sessiondb"], { cwd: project, env: npm.env }),
    run("npm", ["install", ...npm.flags, "@sessiondb/node"], {
      cwd: consumer,
      env: npm.env,
    }),
  ]);
  for (const r of installs) expect(r.code, r.stderr).toBe(0);

  const show = await run(
    path.join(global, "bin", "sessiondb"),
    ["--db", store, "sessions", "list", "--json"],
    {
      env: userEnv(),
    },
  );
  const sessions = JSON.parse(show.stdout).sessions as Array<{ id: string; messageCount: number }>;
  showId = sessions.reduce((a, b) => (b.messageCount > a.messageCount ? b : a)).id;
}, 180_000);

afterAll(async () => {
  await closeRegistry?.();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("npm install --global on the host Node", () => {
  const bin = () => path.join(global, "bin", "sessiondb");

  it("runs right after the install: --version, then stats on better-sqlite3", async () => {
    expect((await run(HOST_NODE, ["--version"])).stdout).toMatch(/^v(2\d|[3-9]\d)\./);
    const v = await run(bin(), ["--version"], { env: userEnv() });
    expect(v.stdout.trim(), v.stderr).toBe(version);
    const stats = await run(bin(), ["--db", store, "stats", "--json"], { env: userEnv() });
    expect(stats.code, stats.stderr).toBe(0);
    const s = JSON.parse(stats.stdout);
    expect(s.runtime).toMatch(/^node /);
    expect(s.driver).toBe("better-sqlite3");
    expect(s.messages.total).toBe(messages);
  });

  it("search finds a token", async () => {
    const r = await run(bin(), ["--db", store, "search", token, "--json"], { env: userEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hits).toHaveLength(1);
  });

  it("a closed reader ends it quietly: `search | head -1`, `sessions show --full | head -1`", async () => {
    const full = await run(bin(), ["--db", store, "sessions", "show", showId, "--full"], { env: userEnv() });
    // More than a pipe buffer (64 KiB), so the writer is still writing when head has gone.
    expect(full.stdout.length).toBeGreaterThan(256 * 1024);
    const show = await headOne([bin(), "--db", store, "sessions", "show", showId, "--full"], dir);
    expectQuietEnd(show);
    expect(show.stdout).toBe(`${full.stdout.split("\n")[0]}\n`);
    const search = await headOne([bin(), "--db", store, "search", "the", "--limit", "200"], dir);
    expectQuietEnd(search);
    expect(search.stdout.split("\n")).toHaveLength(2);
  });
});

describe("a global install whose better-sqlite3 did not build", () => {
  it("says in one line how to mend the CLI on Node 20, and works on Node 24 (node:sqlite)", async () => {
    const bin = path.join(unbuilt, "bin", "sessiondb");
    const r = await run(bin, ["--db", store, "stats"], { env: userEnv() });
    expect(r.code).toBe(6);
    const lines = r.stderr.split("\n").filter(Boolean);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /Reinstall sessiondb with this Node .*npm install -g sessiondb.* \[DRIVER_UNAVAILABLE\]$/,
    );
    if (!fs.existsSync(NODE24)) return;
    const entry = path.join(unbuilt, "lib", "node_modules", "sessiondb", "dist", "bin.js");
    const stats = await run(NODE24, [entry, "--db", store, "stats", "--json"], { env: userEnv() });
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout).driver).toBe("node:sqlite");
  });
});

describe("npx", () => {
  it("npm exec from an empty folder installs and runs the CLI", async () => {
    const empty = fs.mkdtempSync(path.join(dir, "empty-"));
    const args = ["--db", store, "stats", "--json"];
    const r = await run(
      "npm",
      ["exec", "--yes", npm.allowScripts, ...npm.flags, "--package=sessiondb", "--", "sessiondb", ...args],
      {
        cwd: empty,
        env: npm.env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).messages.total).toBe(messages);
  });
});

for (const [name, exe] of [
  ["bunx", BUN],
  ["deno", DENO],
  ["Node 24", NODE24],
]) {
  if (!fs.existsSync(exe as string))
    console.warn(`install.test.ts: the ${name} tests are skipped: no ${exe}`);
}

describe.skipIf(!fs.existsSync(BUN))("bunx", () => {
  it("runs the CLI on Bun although the bin names node and node is on PATH", async () => {
    const r = await run(BUN, ["x", "sessiondb", "--db", store, "stats", "--json"], {
      cwd: project,
      env: userEnv(),
    });
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.runtime).toMatch(/^bun /);
    expect(s.driver).toBe("bun:sqlite");
    expect(s.messages.total).toBe(messages);
  });

  it("bunx, the README's command, runs it on Bun too", async () => {
    const r = await run(BUNX, ["sessiondb", "--db", store, "stats", "--json"], {
      cwd: project,
      env: userEnv(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).runtime).toMatch(/^bun /);
  });

  it("a closed reader ends it quietly", async () => {
    expectQuietEnd(
      await headOne([BUN, "x", "sessiondb", "--db", store, "sessions", "show", showId, "--full"], project),
    );
    expectQuietEnd(await headOne([BUN, "x", "sessiondb", "--db", store, "search", "the"], project));
  });
});

describe.skipIf(!fs.existsSync(DENO))("deno run with the README's permissions", () => {
  const deno = (flags: string[], args: string[]) =>
    run(DENO, ["run", ...flags, "npm:sessiondb", ...args], { cwd: project, env: userEnv() });

  it("the documented flags are enough for stats, search and the default store path", async () => {
    expect(DENO_FLAGS).not.toContain("--allow-all");
    expect(DENO_FLAGS).not.toContain("-A");
    const s = await deno(DENO_FLAGS, ["--db", store, "stats", "--json"]);
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).runtime).toMatch(/^deno /);
    const home = fs.mkdtempSync(path.join(dir, "home-"));
    const r = await run(DENO, ["run", ...DENO_FLAGS, "npm:sessiondb", "stats"], {
      cwd: project,
      env: userEnv({ HOME: home }),
    });
    // The default path (~/.sessiondb/state.db) was looked up: no store there, exit 3.
    expect(r.stderr).toContain(path.join(home, ".sessiondb", "state.db"));
    expect(r.code).toBe(3);
  });

  it("deno install -g, the README's line, from the registry into a fresh DENO_DIR", async () => {
    const line = /deno install ((?:\S+ )+)npm:sessiondb/.exec(README)?.[1];
    expect(line, "the README's deno install line").toBeDefined();
    const flags = (line ?? "").trim().split(/\s+/);
    expect(flags.filter((f) => f.startsWith("--allow-"))).toEqual(DENO_FLAGS);
    const root = path.join(dir, "deno-root");
    const env = userEnv({
      NPM_CONFIG_REGISTRY: registryUrl,
      DENO_DIR: path.join(dir, "deno-dir"),
      // The installed command is a shell script that runs `deno`.
      PATH: `${path.dirname(fs.realpathSync(DENO))}${path.delimiter}${userEnv().PATH}`,
    });
    const empty = fs.mkdtempSync(path.join(dir, "deno-cwd-"));
    const install = await run(DENO, ["install", ...flags, "--root", root, "npm:sessiondb"], {
      cwd: empty,
      env,
    });
    expect(install.code, install.stderr).toBe(0);
    const r = await run(path.join(root, "bin", "sessiondb"), ["--db", store, "stats", "--json"], {
      cwd: empty,
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ driver: "node:sqlite", messages: { total: messages } });
  });

  it("a missing permission is one line naming the flag, not a crash", async () => {
    const r = await deno(["--allow-read", "--allow-write"], ["--db", store, "stats"]);
    expect(r.code).toBe(6);
    const lines = r.stderr.split("\n").filter(Boolean);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^sessiondb: Deno denied env access .*--allow-env.* \[PERMISSION_DENIED\]$/);
  });

  it("doctor and check with scoped permissions report no false problem", async () => {
    const copy = path.join(dir, "scoped", "state.db");
    fs.mkdirSync(path.dirname(copy));
    fs.copyFileSync(store, copy);
    const scoped = [
      `--allow-read=${path.dirname(copy)},${project}`,
      `--allow-write=${path.dirname(copy)}`,
      "--allow-env",
    ];
    const doctor = await deno(scoped, ["--db", copy, "doctor", "--json"]);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const findings = JSON.parse(doctor.stdout).findings as Array<{ check: string; status: string }>;
    expect(findings.filter((f) => f.status === "warn" || f.status === "fail")).toEqual([]);
    expect(findings.find((f) => f.check === "fts integrity")?.status).toBe("ok");
    const check = await deno(scoped, ["--db", copy, "check", "--json"]);
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, skipped: [], writable: true });
    // Without --allow-write the FTS check cannot run; that is a note, not a problem.
    const readOnly = await deno(
      [`--allow-read=${path.dirname(copy)},${project}`, "--allow-env"],
      ["--db", copy, "doctor", "--json"],
    );
    expect(readOnly.code, readOnly.stdout + readOnly.stderr).toBe(0);
  });

  it("a closed reader ends it quietly", async () => {
    const base = [DENO, "run", ...DENO_FLAGS, "npm:sessiondb", "--db", store];
    expectQuietEnd(await headOne([...base, "sessions", "show", showId, "--full"], project));
    expectQuietEnd(await headOne([...base, "search", "the"], project));
  });
});

describe("@sessiondb/node in a consumer project", () => {
  it("type-checks with skipLibCheck false and no @types/better-sqlite3; options take null and, under exactOptionalPropertyTypes, undefined", async () => {
    expect(fs.existsSync(path.join(consumer, "node_modules", "@types", "better-sqlite3"))).toBe(false);
    fs.writeFileSync(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          noEmit: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          types: [],
        },
        files: ["index.ts"],
      }),
    );
    fs.writeFileSync(
      path.join(consumer, "index.ts"),
      [
        'import { openStore, type Store, StoreBusyError } from "@sessiondb/node";',
        'const store: Store = openStore("state.db", { driver: "node:sqlite" });',
        'store.createSession({ id: "s1", source: "cli" });',
        // The documented rule: an option given as null takes its default; and a variable that
        // may be undefined can be passed as it is.
        "let cursor: string | undefined;",
        'store.search("x", { limit: null, roles: null, cursor, substring: undefined });',
        "store.listSessions({ limit: null, source: undefined });",
        'store.getMessages("s1", { last: null });',
        'openStore("state.db", { readOnly: null, patience: { openMs: null, writeMs: undefined } }).close();',
        "store.close();",
        "export const busy = StoreBusyError;",
        "",
      ].join("\n"),
    );
    const tsc = await run(
      HOST_NODE,
      [path.join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", "."],
      {
        cwd: consumer,
        env: userEnv(),
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
  });

  it.skipIf(!fs.existsSync(NODE24))("require() loads it on Node 24 and opens a store", async () => {
    const file = path.join(dir, "required.db");
    const script = `const { openStore } = require("@sessiondb/node");
const store = openStore(${JSON.stringify(file)});
store.createSession({ id: "s1", source: "cli" });
store.appendMessage("s1", { role: "user", content: "hello" });
console.log(store.driverName, store.messageCount("s1"));
store.close();`;
    const r = await run(NODE24, ["-e", script], { cwd: consumer, env: userEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("node:sqlite 1");
  });

  it("require() loads it on the host Node (require(esm), Node ≥ 20.19)", async () => {
    const r = await run(HOST_NODE, ["-e", 'console.log(typeof require("@sessiondb/node").openStore)'], {
      cwd: consumer,
      env: userEnv(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("function");
  });
});
