/**
 * `--db` and `$SESSIONDB_PATH` as URLs, on every runtime: a `file:` URL is the store file, a
 * libSQL URL goes to the server package, anything else is a usage error; file-bound commands
 * refuse a server with NEEDS_FILE before connecting; the token never appears in any output.
 * (The commands against a real libSQL server are in server.test.ts.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, corpusStore, expectOneLineError, json, runOn, TARGETS, tempDir } from "./helpers.js";

const TOKEN = "tok-0123456789-secret";
const URL_SECRET = "pw-9876543210-secret";

let dir: string;
let db: string;

beforeAll(() => {
  dir = tempDir();
  db = path.join(dir, "state.db");
  corpusStore(db, 200, 3);
});

describe("server support loads only for a URL", () => {
  const traced = (args: string[]): string[] => {
    const trace = path.join(dir, `imports-${Math.random().toString(36).slice(2)}.txt`);
    fs.writeFileSync(trace, "");
    cli(args, {
      runtime: [
        process.execPath,
        "--import",
        fileURLToPath(new URL("./fixtures/trace-imports.mjs", import.meta.url)),
      ],
      env: { SESSIONDB_TRACE_IMPORTS: trace },
    });
    return fs.readFileSync(trace, "utf8").split("\n").filter(Boolean);
  };

  it("--version, --help and a file store never import @sessiondb/libsql or its client", () => {
    for (const args of [
      ["--version"],
      ["--help"],
      ["--db", db, "stats"],
      ["--db", pathToFileURL(db).href, "search", "x"],
    ]) {
      const loaded = traced(args);
      expect(loaded.length, args.join(" ")).toBeGreaterThan(0);
      expect(
        loaded.filter((s) => /libsql/.test(s)),
        args.join(" "),
      ).toEqual([]);
    }
  });

  it("a server URL imports @sessiondb/libsql", () => {
    expect(traced(["--db", "http://127.0.0.1:9", "stats"])).toContain("@sessiondb/libsql");
  });
});

describe.each(TARGETS)("store URLs on $name", (target) => {
  const run = runOn(target);
  const withEnv = (args: string[], env: Record<string, string>) => {
    const r = runOn({ ...target, env: { ...target.env, ...env } });
    return r(args);
  };

  it("a file: URL names the store file (absolute and relative)", () => {
    const absolute = json(run(["--db", pathToFileURL(db).href, "stats", "--json"]));
    expect(absolute.path).toBe(db);
    expect(absolute.messages.total).toBe(200);
    const fromEnv = json(withEnv(["stats", "--json"], { SESSIONDB_PATH: pathToFileURL(db).href }));
    expect(fromEnv.path).toBe(db);
  });

  it("another scheme is a usage error, naming the URL forms", () => {
    const r = run(["--db", "postgres://db.example/sessions", "stats"]);
    expectOneLineError(r, 2, "USAGE");
    expect(r.stderr).toContain("libsql://");
  });

  it("a server URL for a file-bound command: exit 2 NEEDS_FILE, before any connection", () => {
    const r = withEnv(["--db", `libsql://user:${URL_SECRET}@127.0.0.1:9/db`, "repair"], {
      SESSIONDB_AUTH_TOKEN: TOKEN,
    });
    expectOneLineError(r, 2, "NEEDS_FILE");
    expect(r.stderr).toContain("libsql://127.0.0.1:9/db");
    expect(r.stderr).not.toContain(URL_SECRET);
    expect(r.stderr).not.toContain(TOKEN);
  });

  it("a server that is not there: one typed line, without the token or the URL's credentials", () => {
    for (const args of [["stats"], ["search", "x", "--json"], ["doctor"]]) {
      const r = withEnv(["--db", `http://127.0.0.1:9/?authToken=${URL_SECRET}`, ...args], {
        SESSIONDB_AUTH_TOKEN: TOKEN,
      });
      expect(r.code, r.stderr).not.toBe(0);
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
      expect(r.stdout + r.stderr).not.toContain(URL_SECRET);
      expect(r.stdout + r.stderr).toContain("http://127.0.0.1:9");
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
  });
});
