/**
 * `openStore(url)` end to end on a real sqld, written once for vitest (Node), `bun test` and
 * `deno test` (each entry file passes its runner's describe/it): the async Store over HTTP and
 * WebSocket (create, append, search, status, integrity, a rebuild under the lease, a second
 * open), and what a bad URL, an unreachable server and a refused token become.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { displayUrl } from "@sessiondb/core/driver";
import { type SqldServer, sqldAuth, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { InvalidInputError, openStore, SqliteError, StoreBusyError, StoreOpenError } from "../src/index.js";
import { cuttingProxy } from "./support/cutting-proxy.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
type Hooks = { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail("expected a rejection"),
    (error: unknown) => error,
  );
}

/** Credentials the cases put in URLs and options: none may appear in any error. */
const TOKEN = "SEKRET123token";
const PASSWORD = "hunter2pw";
const SECRETS = [TOKEN, PASSWORD, "alice:", encodeURIComponent(TOKEN)];

/** Every text an error carries: message and stack of it and of each error along its causes. */
function textsOf(error: unknown): string {
  const texts: string[] = [];
  const seen = new Set<unknown>();
  const visit = (current: unknown): void => {
    if (seen.has(current) || seen.size > 10) return;
    seen.add(current);
    if (!(current instanceof Error)) {
      if (current !== undefined) texts.push(String(current));
      return;
    }
    texts.push(String(current), current.message, String(current.stack));
    visit(current.cause);
    if (current instanceof AggregateError) for (const inner of current.errors) visit(inner);
  };
  visit(error);
  return texts.join("\n");
}

function assertNoSecret(error: unknown, what: string): void {
  const text = textsOf(error);
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${what} shows ${secret}:\n${text}`);
}

/** Established TCP connections from this machine to 127.0.0.1:`port` (their client ends, as
 * /proc/net/tcp lists them — read through `cat`: Deno grants /proc files only with --allow-all). */
function connectionsTo(port: number): number {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const ESTABLISHED = "01";
  return execFileSync("cat", ["/proc/net/tcp"], { encoding: "utf8" })
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[2] === remote && fields[3] === ESTABLISHED).length;
}

/** `url` with a user and password, and an authToken parameter. */
function withCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("authToken", TOKEN);
  return parsed.toString().replace("//", `//alice:${PASSWORD}@`);
}

/** `url` with an authToken parameter. */
function withToken(url: string): string {
  return `${url}${url.includes("?") ? "&" : "/?"}authToken=${TOKEN}`;
}

export function storeCases(describe: Suite, it: Test, hooks: Hooks): void {
  describe("openStore input", () => {
    it("refuses what is not a libSQL URL, and bad connection options, before connecting", async () => {
      for (const url of ["state.db", "", "postgres://x", 42]) {
        assert.ok((await rejection(openStore(url as string))) instanceof InvalidInputError, String(url));
      }
      for (const url of [
        `ftp://alice:${PASSWORD}@db.example.invalid/?authToken=${TOKEN}`,
        `postgres://alice:${PASSWORD}@[bad`,
      ]) {
        const error = await rejection(openStore(url));
        assert.ok(error instanceof InvalidInputError, url);
        assertNoSecret(error, url);
      }
      // Options that are no object were read as none, and the open went on.
      for (const options of [5, "yes", true, [], () => undefined]) {
        const error = await rejection(openStore("http://127.0.0.1:1", options as never));
        assert.ok(error instanceof InvalidInputError, String(error));
        assert.equal(error.field, "openStore options");
      }
      const token = await rejection(openStore("http://127.0.0.1:1", { authToken: 5 as never }));
      assert.equal((token as InvalidInputError).field, "openStore.authToken");
      const timeout = await rejection(openStore("http://127.0.0.1:1", { requestTimeoutMs: -1 }));
      assert.equal((timeout as InvalidInputError).field, "openStore.requestTimeoutMs");
      // The embedded stores' durability choice is no client's to make on a server: refused, not
      // silently ignored.
      for (const durability of ["normal", "full"]) {
        const refused = await rejection(openStore("http://127.0.0.1:1", { durability: durability as never }));
        assert.equal((refused as InvalidInputError).field, "openStore.durability");
        assert.match((refused as Error).message, /server decides/);
      }
    });
  });

  const available = sqldAvailability();
  if (!available.ok) {
    describe(`openStore on sqld — skipped: ${available.reason}`, () => {});
    return;
  }

  describe("openStore on sqld", () => {
    let server: SqldServer;
    hooks.before(async () => {
      server = await startSqld();
    });
    hooks.after(async () => {
      await server?.stop();
    });

    it("creates the store on first open and serves the Store API with promises", async () => {
      const store = await openStore(server.httpUrl);
      try {
        assert.equal(store.readOnly, false);
        assert.equal(store.sqliteVersion, "3.45.1");
        const { id } = await store.createSession({ source: "gateway", title: "first" });
        const ids = await store.appendMessages(id, [
          { role: "user", content: "deploy the gateway tonight" },
          { role: "assistant", content: "the deployment finished" },
        ]);
        assert.equal(ids.length, 2);
        assert.deepEqual(
          (await store.getMessages(id)).map((m) => m.content),
          ["deploy the gateway tonight", "the deployment finished"],
        );
        const found = await store.search("deploy*");
        assert.equal(found.route, "fts");
        assert.deepEqual(found.hits.map((hit) => hit.messageId).sort(), [...ids].sort());
        assert.equal((await store.ftsStatus()).state, "ready");
        assert.equal((await store.checkIntegrity()).ok, true);
      } finally {
        await store.close();
      }
    }, 60_000);

    it("a second open over WebSocket sees the same rows; a rebuild takes and returns the lease", async () => {
      const store = await openStore(server.wsUrl);
      try {
        assert.deepEqual(
          (await store.listSessions()).map((s) => s.title),
          ["first"],
        );
        assert.equal((await store.rebuildFts()).rebuilt, true);
        assert.equal((await store.search("deploy*")).hits.length, 2);
        const other = await openStore(server.httpUrl);
        try {
          assert.equal((await other.rebuildFts({ timeoutMs: 0 })).rebuilt, true, "the lease was released");
        } finally {
          await other.close();
        }
      } finally {
        await store.close();
      }
    }, 60_000);

    it("concurrent appends from one client do not interleave inside each other's transactions", async () => {
      const store = await openStore(server.httpUrl);
      try {
        const { id } = await store.createSession({ source: "burst" });
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, n) =>
            store.appendMessages(
              id,
              [1, 2, 3].map((k) => ({ role: "user" as const, content: `burst ${n}.${k}` })),
            ),
          ),
        );
        for (const ids of results)
          assert.deepEqual(ids, [ids[0], (ids[0] as number) + 1, (ids[0] as number) + 2]);
        assert.equal(new Set(results.flat()).size, 36);
        assert.equal((await store.getSession(id))?.messageCount, 36);
      } finally {
        await store.close();
      }
    }, 60_000);

    it("an append whose COMMIT ran but whose answer was lost is LIBSQL_COMMIT_UNKNOWN and stored once, the node up or down after", async () => {
      // Deno's fetch sends a request again on a new connection when a reused one is reset after
      // delivering it, and reports only the second attempt: a refused connection (the node is
      // down), or sqld's "invalid baton" (the COMMIT already ran). Neither proves the COMMIT did
      // not run; a retry stored the messages twice.
      const direct = await openStore(server.httpUrl);
      try {
        for (const downForMs of [0, 300]) {
          const proxy = await cuttingProxy(server.httpUrl);
          const store = await openStore(proxy.url);
          try {
            const { id } = await store.createSession({ source: "cut" });
            await store.appendMessage(id, { role: "user", content: "warms the connection" });
            proxy.cutOn('"COMMIT"', { downForMs });
            const error = await rejection(
              store.appendMessages(id, [
                { role: "user", content: `maybe ${downForMs}` },
                { role: "assistant", content: "answer" },
              ]),
            );
            assert.equal(proxy.cuts, 1);
            assert.ok(error instanceof SqliteError, String(error));
            assert.equal(
              error.extendedCode,
              "LIBSQL_COMMIT_UNKNOWN",
              `${downForMs} ms down: ${error.message}`,
            );
            // The server committed it: stored exactly once.
            const stored = (await direct.getMessages(id)).map((m) => m.content);
            assert.deepEqual(stored, ["warms the connection", `maybe ${downForMs}`, "answer"]);
            assert.equal((await direct.getSession(id))?.messageCount, 3);
          } finally {
            await store.close();
            await proxy.close();
          }
        }
      } finally {
        await direct.close();
      }
    }, 60_000);

    it("over a WebSocket, a server that stops answering holds a call no longer than requestTimeoutMs, and close() returns", async () => {
      // A stopped (SIGSTOP) sqld still accepts connections but answers nothing, as a stuck one.
      const stuck = await startSqld();
      const port = Number(new URL(stuck.wsUrl).port);
      const before = connectionsTo(port);
      const store = await openStore(stuck.wsUrl, { requestTimeoutMs: 1_000, patience: { appendMs: 3_000 } });
      try {
        const { id } = await store.createSession({ source: "stuck" });
        stuck.pause();
        const started = Date.now();
        const error = await rejection(store.appendMessage(id, { role: "user", content: "never" }));
        assert.ok(error instanceof StoreBusyError, String(error));
        assert.equal(
          error.cause instanceof SqliteError && error.cause.extendedCode,
          "LIBSQL_CONNECTION_LOST",
        );
        assert.ok(Date.now() - started < 8_000, `${Date.now() - started} ms`);
        // Calls in flight together: the first to time out reconnects the client, which ends the
        // others' requests too ("Client was manually closed"); each is a lost connection,
        // retried within patience, never a plain SQLITE_ERROR.
        const together = await Promise.allSettled([
          store.getSession(id),
          store.getSession(id),
          store.messageCount(),
        ]);
        for (const outcome of together) {
          const reason = outcome.status === "rejected" ? outcome.reason : undefined;
          assert.ok(reason instanceof StoreBusyError, String(reason));
          assert.equal(
            reason.cause instanceof SqliteError && reason.cause.extendedCode,
            "LIBSQL_CONNECTION_LOST",
          );
        }
        const closing = Date.now();
        await store.close();
        assert.ok(Date.now() - closing < 2_000, `close took ${Date.now() - closing} ms`);
      } finally {
        stuck.resume();
      }
      // Nothing of the closed store stays connected once the server answers again: each timeout
      // replaced the connection, and a replacement still waiting for its handshake when close()
      // came was left open (and the process alive) once the server answered it.
      let left = connectionsTo(port);
      for (let i = 0; i < 30 && left > before; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = connectionsTo(port);
      }
      assert.ok(
        left <= before,
        `${left} connections to the server stay open after close() (${before} before open)`,
      );
      const again = await openStore(stuck.wsUrl);
      try {
        const [session] = await again.listSessions();
        assert.equal(session?.messageCount, 0, "the append that timed out before COMMIT is not stored");
      } finally {
        await again.close();
        await stuck.stop();
      }
    }, 60_000);

    it("a value longer than the server takes is INVALID_INPUT at once, outside and inside a transaction", async () => {
      // sqld refuses strings from about 5 M characters (SQLITE_TOOBIG), below the store's own
      // 16 Mi limit. A long write patience: had the refusal been taken for contention, it would
      // be retried for 30 s and end as STORE_BUSY.
      const store = await openStore(server.wsUrl, { patience: { writeMs: 30_000 } });
      const big = { role: "user" as const, content: "x".repeat(6_000_000) };
      const started = Date.now();
      try {
        const { id } = await store.createSession({ source: "toobig" });
        const alone = await rejection(store.appendMessage(id, big));
        assert.ok(alone instanceof InvalidInputError, String(alone));
        assert.equal(alone.field, "value");
        assert.match(alone.message, /the append of 1 message to session/);
        const inside = await rejection(
          store.transaction(async (tx) => {
            await tx.appendMessage(id, { role: "user", content: "kept only if the body goes on" });
            const refused = await rejection(tx.appendMessage(id, big));
            assert.ok(refused instanceof InvalidInputError, String(refused));
            throw refused;
          }),
        );
        assert.ok(inside instanceof InvalidInputError, String(inside));
        await store.transaction(async (tx) => {
          await tx.appendMessage(id, { role: "user", content: "before" });
          await rejection(tx.appendMessages(id, [{ role: "user", content: "in the batch" }, big]));
          await tx.appendMessage(id, { role: "user", content: "after" });
        });
        assert.deepEqual(
          (await store.getMessages(id)).map((m) => m.content),
          ["before", "after"],
        );
        assert.equal((await store.getSession(id))?.messageCount, 2);
        assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
      } finally {
        await store.close();
      }
    }, 60_000);

    it("a libsql:// URL with ?tls=0 reaches a plain server (over HTTP)", async () => {
      const store = await openStore(`${server.httpUrl.replace("http:", "libsql:")}?tls=0`);
      try {
        assert.equal((await store.listSessions({ source: "gateway" })).length, 1);
      } finally {
        await store.close();
      }
    }, 60_000);

    it("an https:// or wss:// URL at a plain-HTTP server fails at once, typed, on every runtime", async () => {
      const plain = new URL(server.httpUrl);
      for (const url of [`https://${plain.host}`, `wss://${plain.host}`, `libsql://${plain.host}`]) {
        const started = Date.now();
        const error = await rejection(openStore(url, { patience: { openMs: 20_000 } }));
        const waited = Date.now() - started;
        assert.ok(error instanceof StoreOpenError, `${url}: ${String(error)}`);
        assert.match(error.message, /TLS/, url);
        assert.ok(waited < 10_000, `${url}: waited ${waited} ms of the 20 s patience`);
      }
    }, 60_000);

    it("a server unreachable for the whole open patience is StoreOpenError saying so, after about the patience", async () => {
      const gone = await startSqld();
      const urls = [gone.httpUrl, gone.wsUrl, `${gone.httpUrl.replace("http:", "libsql:")}?tls=0`];
      await gone.stop();
      for (const url of urls) {
        const started = Date.now();
        const error = await rejection(openStore(url, { patience: { openMs: 1_500 } }));
        const waited = Date.now() - started;
        assert.ok(error instanceof StoreOpenError, url);
        assert.equal(error.code, "STORE_OPEN_FAILED");
        assert.match(
          error.message,
          /the libSQL server did not answer for \d+\.\d s, the open patience \(patience\.openMs.*\).*unreachable/,
        );
        assert.ok(error.cause instanceof SqliteError, url);
        assert.equal(error.cause.extendedCode, "LIBSQL_UNREACHABLE");
        assert.ok(waited >= 1_400 && waited < 10_000, `${url}: waited ${waited} ms`);
      }
    }, 60_000);

    it("a server that takes the connection and never answers holds the open no longer than its patience", async () => {
      // A hung server (or a proxy in front of one): without a bound of the open's own, the probe
      // waited for the client's request timeout (60 s) whatever the patience.
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        sockets.add(socket);
        socket.on("error", () => {});
      });
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const { port } = silent.address() as AddressInfo;
      try {
        for (const url of [
          `http://127.0.0.1:${port}`,
          `ws://127.0.0.1:${port}`,
          `libsql://127.0.0.1:${port}?tls=0`,
        ]) {
          const started = Date.now();
          const error = await rejection(openStore(url, { patience: { openMs: 1_500 } }));
          const waited = Date.now() - started;
          assert.ok(error instanceof StoreOpenError, `${url}: ${String(error)}`);
          assert.match(error.message, /the libSQL server did not answer for \d+\.\d s, the open patience/);
          assert.match(error.message, /did not answer within \d+ ms/);
          // Well short of a second wait of its own (a 5 s check of the token over HTTP, say).
          assert.ok(waited >= 1_400 && waited < 6_000, `${url}: waited ${waited} ms`);
        }
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    }, 60_000);

    it("a URL where some other HTTP server answers fails at once; a proxy's 502/503/504 is waited for", async () => {
      // What answers a status in place of libSQL's answer will answer it again: waiting out the
      // open's patience helps only when a proxy says the server behind it is away.
      let status = 501;
      const sockets = new Set<Socket>();
      const plain = createServer((socket) => {
        sockets.add(socket);
        socket.on("error", () => {});
        socket.once("data", () =>
          socket.end(`HTTP/1.1 ${status} Whatever\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnope`),
        );
      });
      await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
      const { port } = plain.address() as AddressInfo;
      const open = async (url: string) => {
        const started = Date.now();
        const error = await rejection(openStore(url, { patience: { openMs: 3_000 } }));
        assert.ok(error instanceof StoreOpenError, `${url}: ${String(error)}`);
        return { error, waited: Date.now() - started };
      };
      try {
        for (const scheme of ["http", "ws"]) {
          const url = `${scheme}://127.0.0.1:${port}`;
          for (const answer of [501, 404]) {
            status = answer;
            const { error, waited } = await open(url);
            assert.match(error.message, new RegExp(`\\b${answer}\\b`), url);
            assert.doesNotMatch(error.message, /did not answer/, `${url}: ${error.message}`);
            assert.ok(waited < 2_000, `${url} (${answer}): waited ${waited} ms`);
          }
          status = 503;
          const { error, waited } = await open(url);
          assert.match(error.message, /did not answer for \d+\.\d s, the open patience/, url);
          assert.ok(waited >= 2_900, `${url} (503): waited ${waited} ms`);
        }
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => plain.close(resolve));
      }
    }, 60_000);

    it("an open waits for a server that starts within the open patience (a gateway started before its sqld)", async () => {
      const later = await startSqld();
      try {
        for (const url of [later.httpUrl, later.wsUrl]) {
          await later.kill();
          const started = Date.now();
          const opening = openStore(url, { patience: { openMs: 20_000 } });
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          await later.restart();
          const store = await opening;
          try {
            assert.ok(Date.now() - started >= 1_000);
            const { id } = await store.createSession({ source: "started-late" });
            assert.equal((await store.getSession(id))?.source, "started-late");
          } finally {
            await store.close();
          }
        }
      } finally {
        await later.stop();
      }
    }, 90_000);

    it("a refused token, a bad URL and a missing store fail at once, never waiting for the patience", async () => {
      const auth = sqldAuth();
      const secured = await startSqld({ auth });
      try {
        for (const url of [secured.httpUrl, secured.wsUrl]) {
          for (const authToken of [undefined, sqldAuth().token()]) {
            const started = Date.now();
            const error = await rejection(openStore(url, { authToken, patience: { openMs: 20_000 } }));
            assert.ok(error instanceof StoreOpenError, url);
            assert.match(error.message, /refused the credentials/);
            assert.ok(Date.now() - started < 10_000, `${url}: took ${Date.now() - started} ms`);
          }
          const store = await openStore(url, { authToken: auth.token() });
          assert.equal(await store.messageCount(), 0);
          await store.close();
        }
        const started = Date.now();
        const badTls = await rejection(openStore(`${secured.httpUrl.replace("http:", "libsql:")}?tls=2`));
        assert.ok(badTls instanceof StoreOpenError);
        const empty = await startSqld();
        try {
          const none = await rejection(openStore(empty.httpUrl, { readOnly: true }));
          assert.ok(none instanceof StoreOpenError && none.noStore);
          // Another application's database on the server: refused, and named by its URL.
          const made = await fetch(`${empty.httpUrl}/v2/pipeline`, {
            method: "POST",
            body: JSON.stringify({
              requests: [{ type: "execute", stmt: { sql: "CREATE TABLE users (id INTEGER PRIMARY KEY)" } }],
            }),
          });
          assert.equal(made.status, 200, await made.text());
          const foreign = await rejection(openStore(empty.httpUrl));
          assert.ok(foreign instanceof StoreOpenError && !foreign.noStore, String(foreign));
          assert.equal(foreign.path, displayUrl(empty.httpUrl));
          assert.match(foreign.message, /another application's database.*\(users\)/);
        } finally {
          await empty.stop();
        }
        assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
      } finally {
        await secured.stop();
      }
    }, 60_000);

    it("no error shows a credential: open refused, unreachable, lost mid-session, refused token", async () => {
      // A user and password in the URL: Node's fetch refuses them at once, a WebSocket client
      // may send them (sqld without auth then lets it in), a host that does not resolve waits.
      for (const url of [
        withCredentials(server.httpUrl),
        withCredentials(server.wsUrl),
        `https://alice:${PASSWORD}@db.example.invalid/`,
      ]) {
        const outcome = await openStore(url, { patience: { openMs: 300 } }).then(
          (store) => store.close(),
          (error: unknown) => error,
        );
        if (outcome === undefined) continue;
        assert.ok(outcome instanceof StoreOpenError, url);
        assertNoSecret(outcome, url);
      }
      // Unreachable through the whole patience.
      const gone = await startSqld();
      const goneUrls = [gone.httpUrl, gone.wsUrl, `${gone.httpUrl.replace("http:", "libsql:")}?tls=0`];
      await gone.stop();
      for (const url of goneUrls) {
        const error = await rejection(
          openStore(withToken(url), { authToken: TOKEN, patience: { openMs: 300 } }),
        );
        assert.ok(error instanceof StoreOpenError, url);
        assert.match(error.message, /unreachable/);
        assertNoSecret(error, url);
      }
      // Refused by a server that checks tokens.
      const secured = await startSqld({ auth: sqldAuth() });
      try {
        for (const url of [secured.httpUrl, secured.wsUrl]) {
          const error = await rejection(openStore(withToken(url), { patience: { openMs: 300 } }));
          assert.ok(error instanceof StoreOpenError, url);
          assert.match(error.message, /refused the credentials/);
          assertNoSecret(error, url);
        }
      } finally {
        await secured.stop();
      }
      // Lost after a good open: the server dies mid-session.
      const dying = await startSqld();
      try {
        for (const url of [dying.httpUrl, dying.wsUrl]) {
          if (!dying.running) await dying.restart();
          const store = await openStore(withToken(url), { patience: { writeMs: 600, appendMs: 600 } });
          try {
            const { id } = await store.createSession({ source: "dies" });
            await dying.kill();
            const error = await rejection(store.appendMessage(id, { role: "user", content: "never stored" }));
            assert.ok(error instanceof StoreBusyError, url);
            assert.match(error.message, /unreachable|lost/);
            assert.ok(!error.message.includes(".."), error.message);
            assertNoSecret(error, url);
          } finally {
            await store.close();
          }
        }
      } finally {
        await dying.stop();
      }
    }, 90_000);
  });
}
