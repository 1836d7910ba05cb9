/**
 * `--db` and `$SESSIONDB_PATH` as URLs, on every runtime: a `file:` URL is the store file, a
 * libSQL URL goes to the server package, anything else is a usage error; file-bound commands
 * refuse a server with NEEDS_FILE before connecting; the token never appears in any output.
 * (The commands against a real libSQL server are in server.test.ts.)
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
  cli,
  corpusStore,
  expectOneLineError,
  json,
  ONE_RUNTIME,
  runOn,
  TARGETS,
  tempDir,
} from "./helpers.js";

const TOKEN = "tok-0123456789-secret";
const URL_SECRET = "pw-9876543210-secret";

let dir: string;
let db: string;

/** A loopback port nothing listens on (a connection there is refused). */
let closedPort: number;

beforeAll(async () => {
  closedPort = await new Promise<number>((resolve, reject) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close((error) => (error ? reject(error) : resolve(port)));
    });
  });
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
        // The packages by name: a checkout's own path may contain "libsql".
        loaded.filter((s) => /@sessiondb\/libsql|@libsql\//.test(s)),
        args.join(" "),
      ).toEqual([]);
    }
  });

  it("a server URL imports @sessiondb/libsql", () => {
    expect(traced(["--db", "http://127.0.0.1:9", "--wait", "0", "stats"])).toContain("@sessiondb/libsql");
  });
});

// The URL handed to the runtime's own file and network code: on every runtime.
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

  it("a server that is not there: one typed line after --wait, without the token or the URL's credentials", () => {
    // A short password too: too short to be redacted as text, it must never be printed at all.
    const host = `127.0.0.1:${closedPort}`;
    const urls = [
      `http://${host}/?authToken=${URL_SECRET}`,
      `http://user:${URL_SECRET}@${host}/`,
      `http://user:pw@${host}/`,
      `ws://user:pw@${host}/?authToken=${URL_SECRET}`,
    ];
    for (const url of urls) {
      for (const args of [["stats"], ["stats", "--json"], ["search", "x", "--json"], ["doctor"]]) {
        const r = withEnv(["--db", url, "--wait", "300", ...args], { SESSIONDB_AUTH_TOKEN: TOKEN });
        const what = `${url} ${args.join(" ")}`;
        const printed = r.stdout + r.stderr;
        if (args.includes("--json")) {
          expect(r.code, what).toBe(6);
          expect(JSON.parse(r.stderr).error.code, what).toBe("STORE_OPEN_FAILED");
        } else if (args[0] === "stats") {
          expectOneLineError(r, 6, "STORE_OPEN_FAILED");
        } else expect(r.code, r.stderr).not.toBe(0);
        // Node's fetch refuses a URL with a user and password at once; otherwise the server
        // stayed unreachable for the whole --wait.
        if (args[0] !== "doctor") expect(printed, what).toMatch(/unreachable|includes credentials/);
        for (const secret of [TOKEN, URL_SECRET, "user:", "pw@"]) expect(printed, what).not.toContain(secret);
        expect(printed, what).toContain(`${url.split(":")[0]}://${host}`);
        expect(r.stderr, what).not.toMatch(/^\s+at /m);
      }
    }
  });
});

// Refused from the URL's text alone, before any file or connection: the same CLI code on every
// runtime (helpers' ONE_RUNTIME), so one runtime.
describe.each(ONE_RUNTIME)("store URLs on $name (runtime-independent)", (target) => {
  const run = runOn(target);
  const withEnv = (args: string[], env: Record<string, string>) => {
    const r = runOn({ ...target, env: { ...target.env, ...env } });
    return r(args);
  };

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
});
