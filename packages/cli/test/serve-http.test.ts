/**
 * `sessiondb serve` security rules over real HTTP, on every runtime: the server runs as a real
 * subprocess (`--port 0`, address read from its output) over a corpus store, and every request
 * goes to 127.0.0.1.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bTreeRoot, cli, corpusStore, tempDir, withStore } from "./helpers.js";
import { peakMemory, request, SERVE_RUNTIMES, type Served, startServe, upload } from "./serve-process.js";

let dir: string;
let db: string;
let sessionId: string;
let toolMessage: { id: number; content: string };

beforeAll(() => {
  dir = tempDir();
  db = path.join(dir, "served.db");
  corpusStore(db, 600, 5);
  sessionId = withStore(db, (store) => store.listSessions({ limit: 1 })[0]?.id as string);
  toolMessage = withStore(db, (store) => {
    const m = store.getMessages(sessionId).find((x) => x.role === "tool");
    return { id: m?.id as number, content: m?.content as string };
  });
  withStore(db, (store) => {
    store.createSession({ id: "markdown", source: "test" });
    store.appendMessage("markdown", { role: "assistant", content: MARKDOWN });
  });
});

/** A message whose markdown every runtime's server must render the same way. */
const MARKDOWN =
  "| a | b |\n|-|-|\n| <script>x</script> | ~~y~~ |\n\n[docs](https://example.com/d) [no](javascript:alert(1))";

const digest = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/** An error page must not say where the store is, nor show a stack. */
function expectNothingLeaked(body: string): void {
  expect(body).not.toContain(dir);
  expect(body).not.toMatch(/\/tmp\/|node_modules|\.js:\d+|\.ts:\d+|\n\s+at \S/);
}

/** Control characters a terminal obeys (C0 but newline and tab, DEL, C1). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Overwrite the root page of the store's messages table: the store opens and its sessions read,
 * but reading any message fails as corrupt. */
function damageMessages(file: string): void {
  const { root, pageSize } = bTreeRoot(file, "messages");
  const fd = fs.openSync(file, "r+");
  try {
    fs.writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (root - 1) * pageSize);
  } finally {
    fs.closeSync(fd);
  }
}

async function withServer<T>(served: Served, fn: (s: Served) => Promise<T>): Promise<T> {
  try {
    return await fn(served);
  } finally {
    await served.stop();
  }
}

describe("serve: command line", () => {
  it("a missing store exits 3 before listening", () => {
    const r = cli(["--db", path.join(dir, "missing.db"), "serve", "--port", "0"]);
    expect(r.code).toBe(3);
    expect(r.stdout).not.toContain("http://");
  });
});

describe.each(SERVE_RUNTIMES)("serve on $name", ({ runtime, env }) => {
  it("loopback: prints its address, serves pages without a token, stops on SIGTERM with exit 0", async () => {
    const served = await startServe(runtime, db, [], env);
    expect(served.printed).toBe(`http://127.0.0.1:${served.port}/`);
    expect(served.token).toBeUndefined();
    const list = await request(served.port, "/sessions");
    expect(list.status).toBe(200);
    expect(list.headers["content-type"]).toMatch(/text\/html/);
    expect(list.body).toContain(sessionId);
    expect(list.body).toMatch(/<footer>[^<]*read-only<\/footer>/);
    expect(list.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(list.headers["x-frame-options"]).toBe("DENY");
    const raw = await request(served.port, `/sessions/${sessionId}/messages/${toolMessage.id}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.headers["content-type"]).toMatch(/^text\/plain/);
    expect(raw.headers["content-security-policy"]).toMatch(/^sandbox/);
    expect(raw.body).toBe(toolMessage.content);
    // The transcript renders markdown (markdown-it, loaded on first use) on every runtime.
    const shown = (await request(served.port, "/sessions/markdown")).body;
    expect(shown).toContain("<td>&lt;script&gt;x&lt;/script&gt;</td>\n<td><s>y</s></td>");
    expect(shown).toContain('<a href="https://example.com/d" rel="noopener noreferrer nofollow">docs</a>');
    expect(shown).toContain("[no](javascript:alert(1))");
    for (const host of [`localhost:${served.port}`, `[::1]:${served.port}`])
      expect((await request(served.port, "/health", { headers: { host } })).status).toBe(200);
    expect(await served.stop()).toBe(0);
  });

  it("a port in use is one clear line and exit 1", async () => {
    await withServer(await startServe(runtime, db, [], env), async ({ port }) => {
      const r = cli(["--db", db, "serve", "--port", String(port)], { runtime, env });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `sessiondb: port ${port} on 127.0.0.1 is in use; pick another with --port N (0 for any free port) [ADDRESS_IN_USE]`,
      );
    });
  });

  it("rejects a Host that is not this server's (DNS rebinding) with 403", async () => {
    await withServer(await startServe(runtime, db, [], env), async ({ port }) => {
      for (const host of [
        `rebind.example:${port}`,
        `127.0.0.1:${port + 1}`,
        "127.0.0.1",
        `evil.localhost.example:${port}`,
      ]) {
        const r = await request(port, "/sessions", { headers: { host } });
        expect(r.status, host).toBe(403);
        expect(r.body).not.toContain(sessionId);
        expectNothingLeaked(r.body);
      }
    });
  });

  it("has no write routes: every other method is 405 and the store file is unchanged", async () => {
    const before = digest(db);
    await withServer(await startServe(runtime, db, [], env), async ({ port }) => {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        for (const target of ["/sessions", `/sessions/${sessionId}`, "/search", "/", "/nope"]) {
          const r = await request(port, target, {
            method,
            body: "title=x",
            headers: { "content-type": "application/x-www-form-urlencoded" },
          });
          expect(r.status, `${method} ${target}`).toBe(405);
          expect(r.headers.allow).toBe("GET, HEAD");
          expectNothingLeaked(r.body);
        }
      }
      expect((await request(port, "/sessions")).status).toBe(200);
      expect((await request(port, `/sessions/${encodeURIComponent(sessionId)}`)).body).not.toContain(
        'name="csrf"',
      );
    });
    expect(digest(db)).toBe(before);
  });

  it("--allow-write: session pages carry CSRF-protected forms; a post without the token, from another origin or of another kind changes nothing; rename, archive and delete work", async () => {
    const copy = path.join(dir, `write-${runtime[0]?.split("/").at(-1)}.db`);
    corpusStore(copy, 200, 3);
    const id = withStore(copy, (store) => store.listSessions({ limit: 1 })[0]?.id as string);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    await withServer(await startServe(runtime, copy, ["--allow-write"], env), async ({ port, stdout }) => {
      const page = (await request(port, `/sessions/${encodeURIComponent(id)}`)).body;
      expect(stdout()).toMatch(/read-write view of /);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
      expect(csrf).toMatch(/^[\w-]{20,}$/);
      const post = (target: string, body: string, headers: Record<string, string> = {}) =>
        request(port, `/sessions/${encodeURIComponent(id)}/${target}`, {
          method: "POST",
          body,
          headers: { ...form, ...headers },
        });
      const before = digest(copy);
      for (const [why, reply] of [
        ["no token", await post("rename", "title=pwned")],
        ["wrong token", await post("rename", "title=pwned&csrf=nope")],
        ["other origin", await post("rename", `title=pwned&csrf=${csrf}`, { origin: "http://evil.example" })],
        [
          "null origin without fetch metadata",
          await post("rename", `title=pwned&csrf=${csrf}`, { origin: "null" }),
        ],
        [
          "cross-site fetch",
          await post("delete", `confirm=${id}&csrf=${csrf}`, { "sec-fetch-site": "cross-site" }),
        ],
        [
          "not a form",
          await post("rename", JSON.stringify({ title: "pwned", csrf }), {
            "content-type": "application/json",
          }),
        ],
      ] as const) {
        expect(reply.status, why).toBe(403);
        expectNothingLeaked(reply.body);
      }
      const put = await request(port, "/sessions", { method: "PUT" });
      expect(put.status).toBe(405);
      expect(put.headers.allow).toBe("GET, HEAD, POST");
      expect(digest(copy)).toBe(before);

      const origin = { origin: `http://127.0.0.1:${port}`, "sec-fetch-site": "same-origin" };
      const renamed = await post(
        "rename",
        `title=${encodeURIComponent("Renamed <b>here</b>")}&csrf=${csrf}`,
        origin,
      );
      expect(renamed.status).toBe(303);
      expect(renamed.headers.location).toBe(`/sessions/${encodeURIComponent(id)}`);
      const shown = (await request(port, `/sessions/${encodeURIComponent(id)}`)).body;
      expect(shown).toContain("<h1>Renamed &lt;b&gt;here&lt;/b&gt;</h1>");
      expect((await post("archive", `archived=1&csrf=${csrf}`)).status).toBe(303);
      expect((await post("archive", `archived=maybe&csrf=${csrf}`)).status).toBe(400);
      const wrongConfirm = await post("delete", `confirm=not-it&csrf=${csrf}`);
      expect(wrongConfirm.status).toBe(400);
      expect(wrongConfirm.body).toContain("type its id exactly");
      expect(withStore(copy, (store) => store.getSession(id), { readOnly: true })).toMatchObject({
        title: "Renamed <b>here</b>",
        archived: true,
      });
      const deleted = await post("delete", `confirm=${encodeURIComponent(id)}&csrf=${csrf}`);
      expect(deleted.status).toBe(303);
      expect(deleted.headers.location).toBe("/sessions");
      expect((await request(port, `/sessions/${encodeURIComponent(id)}`)).status).toBe(404);
      expect((await post("rename", `title=x&csrf=${csrf}`)).status).toBe(404);
    });
    expect(withStore(copy, (store) => store.getSession(id), { readOnly: true })).toBeUndefined();
  });

  it("--allow-write: a form body over 64 KB is refused with 413 before it is read (by its Content-Length, or while reading a chunked one); memory stays flat and nothing changes", async () => {
    const copy = path.join(fs.mkdtempSync(path.join(dir, "limit-")), "state.db");
    corpusStore(copy, 50, 2);
    const id = withStore(copy, (store) => store.listSessions({ limit: 1 })[0]?.id as string);
    await withServer(await startServe(runtime, copy, ["--allow-write"], env), async ({ port, child }) => {
      const target = `/sessions/${encodeURIComponent(id)}/rename`;
      const page = (await request(port, `/sessions/${encodeURIComponent(id)}`)).body;
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
      const headers = {
        "content-type": "application/x-www-form-urlencoded",
        origin: `http://127.0.0.1:${port}`,
        "sec-fetch-site": "same-origin",
      };
      // A valid form that only its size makes wrong: before the limit it renamed the session.
      const prefix = `csrf=${csrf}&title=`;
      const before = peakMemory(child.pid);
      const MB = 1024 * 1024;
      // 100 MB by Content-Length stays under Bun's own cap (128 MB), so the 413 is this server's.
      for (const [chunked, bytes] of [
        [false, 100 * MB],
        [true, 200 * MB],
      ] as const) {
        const r = await upload(port, target, { prefix, bytes, chunked, headers });
        expect(r.status, chunked ? "chunked" : "content-length").toBe(413);
        expect(r.body).toContain("64 KB");
        expectNothingLeaked(r.body);
        // Refused before the body was sent, or soon after 64 KB of it.
        expect(r.sent, chunked ? "chunked" : "content-length").toBeLessThan(50 * MB);
      }
      const after = peakMemory(child.pid);
      if (before !== undefined && after !== undefined) expect(after - before).toBeLessThan(64 * MB);
      expect(withStore(copy, (store) => store.getSession(id), { readOnly: true })?.title).not.toMatch(/^a+$/);
      // A form within the limit still works afterwards.
      const ok = await upload(port, target, { prefix, bytes: 1000, chunked: true, headers });
      expect(ok.status).toBe(303);
      expect(withStore(copy, (store) => store.getSession(id), { readOnly: true })?.title).toMatch(/^a+$/);
    });
  });

  it("--allow-write: pages and /health say the server can write; a write after the store file was deleted is a 409 page in words", async () => {
    const copy = path.join(fs.mkdtempSync(path.join(dir, "gone-")), "state.db");
    corpusStore(copy, 50, 2);
    const id = withStore(copy, (store) => store.listSessions({ limit: 1 })[0]?.id as string);
    await withServer(await startServe(runtime, copy, ["--allow-write"], env), async ({ port, stderr }) => {
      const page = (await request(port, `/sessions/${encodeURIComponent(id)}`)).body;
      expect(page).toMatch(/<footer>[^<]*read-write<\/footer>/);
      expect(page).not.toContain("read-only");
      const health = (await request(port, "/health")).body;
      expect(health).toContain("read-write view");
      expect(health).not.toContain("read-only");
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
      for (const file of fs.readdirSync(path.dirname(copy))) fs.rmSync(path.join(path.dirname(copy), file));
      const r = await request(port, `/sessions/${encodeURIComponent(id)}/rename`, {
        method: "POST",
        body: `title=after&csrf=${csrf}`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(r.status).toBe(409);
      expect(r.body).toContain("Store not writable");
      expect(r.body).toContain("Nothing was changed");
      expectNothingLeaked(r.body);
      expect(stderr()).toBe("");
    });
  });

  it("search marks only the store's matches: guillemets in stored text stay text", async () => {
    const file = path.join(fs.mkdtempSync(path.join(dir, "marks-")), "state.db");
    withStore(file, (store) => {
      store.createSession({ id: "quotes", source: "test" });
      store.appendMessage("quotes", { role: "user", content: "«fake» marker uniqueword and «uniqueword»" });
    });
    await withServer(await startServe(runtime, file, [], env), async ({ port }) => {
      for (const q of ["uniqueword", "uniquew*", "niquewor&substring=1"]) {
        const r = await request(port, `/search?q=${q}`);
        const snippet = /<div class="snippet">(.*?)<\/div>/.exec(r.body)?.[1];
        expect(snippet, q).toContain("«fake» marker");
        expect(snippet, q).not.toContain("<mark>fake</mark>");
        expect(snippet?.match(/<mark>/g), q).toHaveLength(2);
        expect(snippet?.replace(/<\/?mark>/g, ""), q).toBe("«fake» marker uniqueword and «uniqueword»");
      }
    });
  });

  it("serves no file from disk, and its error pages carry no path or stack", async () => {
    await withServer(await startServe(runtime, db, [], env), async ({ port, stderr }) => {
      for (const [target, status] of [
        ["/assets/../../../../etc/passwd", 404],
        ["/assets/..%2f..%2fpackage.json", 404],
        ["/assets/%2e%2e/%2e%2e/etc/passwd", 404],
        [`/sessions/${encodeURIComponent("../../etc/passwd")}`, 404],
        ["/sessions/no-such-session", 404],
        [`/sessions/${sessionId}/messages/999999999`, 404],
        ["/sessions/no-such-session/messages/1", 404],
        ["/sessions/no-such-session/messages/1/raw", 404],
        ["/sessions?page=abc", 400],
        ["/search?q=x&role=robot", 400],
        ["/usage?from=yesterday", 400],
      ] as const) {
        const r = await request(port, target);
        expect(r.status, target).toBe(status);
        expect(r.body).not.toContain("root:");
        expectNothingLeaked(r.body);
      }
      expect(stderr()).toBe("");
    });
  });

  it("an unexpected failure is a 500 page without details (they go to stderr)", async () => {
    const broken = path.join(dir, `broken-${runtime[0]?.split("/").at(-1)}.db`);
    fs.copyFileSync(db, broken);
    await withServer(await startServe(runtime, broken, [], env), async ({ port, stderr }) => {
      // Cut the file under the running server: pages it has not read yet are gone.
      fs.truncateSync(broken, 8192);
      const statuses: number[] = [];
      for (const target of ["/sessions?sort=cost", `/sessions/${sessionId}`, "/usage", "/search?q=error"]) {
        const r = await request(port, target);
        statuses.push(r.status);
        if (r.status >= 500) {
          expect(r.body).toContain("Something went wrong");
          expectNothingLeaked(r.body);
        }
      }
      expect(statuses.some((s) => s === 500)).toBe(true);
      expect(stderr()).toMatch(/failed/);
    });
  });

  it("a failure's log line shows control characters in the request's path escaped, never raw", async () => {
    // Session ids refuse C0 controls but not C1 ones: CSI (U+009B) and OSC (U+009D) start escape
    // sequences on a terminal that reads 8-bit controls. The path is logged decoded.
    const id = "c1\u009b2J\u009d0owned";
    const file = path.join(fs.mkdtempSync(path.join(dir, "controls-")), "state.db");
    withStore(file, (store) => {
      store.createSession({ id, source: "test" });
      for (let n = 0; n < 50; n++) store.appendMessage(id, { role: "user", content: `row ${n} `.repeat(30) });
    });
    damageMessages(file);
    await withServer(await startServe(runtime, file, [], env), async ({ port, stderr }) => {
      const r = await request(port, `/sessions/${encodeURIComponent(id)}`);
      expect(r.status).toBe(200);
      expect(r.body).toContain("The rest of this page could not be read");
      for (let waited = 0; !stderr().includes("failed while streaming") && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stderr()).toContain(
        "sessiondb serve: /sessions/c1\\u009b2J\\u009d0owned failed while streaming: ",
      );
      expect(stderr()).not.toMatch(CONTROL);
    });
  });

  it("health and search report a backfill in progress (state, progress, route fts+like)", async () => {
    const partial = path.join(dir, `backfill-${runtime[0]?.split("/").at(-1)}.db`);
    fs.copyFileSync(db, partial);
    const [indexed, total] = withStore(partial, (store) => {
      store.startFtsBackfill();
      store.ftsBackfillStep({ chunkRows: 100 });
      const status = store.ftsStatus();
      if (status.state !== "backfilling") throw new Error(`expected a backfill, got ${status.state}`);
      return [status.indexed, status.total];
    });
    expect(indexed).toBeLessThan(total);
    await withServer(await startServe(runtime, partial, [], env), async ({ port }) => {
      const health = await request(port, "/health");
      expect(health.body).toMatch(/<div class="finding warn" data-check="fts">.*backfilling/s);
      expect(health.body).toContain(`<progress max="${total}" value="${indexed}">`);
      const search = await request(port, "/search?q=error");
      expect(search.body).toMatch(/Route <b>fts\+like<\/b>/);
    });
  });

  it("off loopback: a token printed once is required; ?token= sets a cookie; Bearer works; Host still checked", async () => {
    await withServer(await startServe(runtime, db, ["--host", "0.0.0.0"], env), async (served) => {
      const { port, token } = served;
      expect(token).toMatch(/^[\w-]{24,}$/);
      expect(served.stdout().split(token as string).length - 1).toBe(1);
      expect(served.stderr()).not.toContain(token as string);

      const anonymous = await request(port, "/sessions");
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).not.toContain(sessionId);
      expect((await request(port, `/sessions/${sessionId}`)).status).toBe(401);
      expect((await request(port, "/sessions?token=wrong")).status).toBe(401);
      expect((await request(port, "/sessions", { headers: { authorization: "Bearer wrong" } })).status).toBe(
        401,
      );

      const login = await request(port, `/sessions?source=cli&token=${token}`);
      expect(login.status).toBe(303);
      expect(login.headers.location).toBe("/sessions?source=cli");
      const cookie = String(login.headers["set-cookie"]);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      const withCookie = await request(port, "/sessions", {
        headers: { cookie: cookie.split(";")[0] as string },
      });
      expect(withCookie.status).toBe(200);
      expect(withCookie.body).toContain(sessionId);
      expect(
        (await request(port, "/sessions", { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(200);

      const rebound = await request(port, "/sessions", {
        headers: { host: `rebind.example:${port}`, authorization: `Bearer ${token}` },
      });
      expect(rebound.status).toBe(403);
      expect(
        (await request(port, "/sessions", { method: "POST", headers: { authorization: `Bearer ${token}` } }))
          .status,
      ).toBe(405);
    });
  });

  it("SESSIONDB_SERVE_TOKEN: used instead of a printed one, and required on loopback too", async () => {
    const secret = "correct-horse-battery-staple-0123456789";
    await withServer(
      await startServe(runtime, db, [], { ...env, SESSIONDB_SERVE_TOKEN: secret }),
      async (served) => {
        expect(served.token).toBeUndefined();
        expect(served.stdout()).not.toContain(secret);
        expect((await request(served.port, "/sessions")).status).toBe(401);
        expect(
          (await request(served.port, "/sessions", { headers: { authorization: `Bearer ${secret}` } }))
            .status,
        ).toBe(200);
        // A cookie that is not valid percent-encoding is no token, not a failure.
        for (const value of ["%E0%A4%A", "%", "%zz"]) {
          const r = await request(served.port, "/sessions", {
            headers: { cookie: `sessiondb_token_${served.port}=${value}` },
          });
          expect(r.status, value).toBe(401);
        }
        expect(served.stderr()).toBe("");
      },
    );
  });

  it("the redirect that drops ?token= stays on this server, whatever slashes the path starts with", async () => {
    const secret = "correct-horse-battery-staple-0123456789";
    await withServer(
      await startServe(runtime, db, [], { ...env, SESSIONDB_SERVE_TOKEN: secret }),
      async ({ port, stderr }) => {
        const origin = `http://127.0.0.1:${port}`;
        for (const target of [
          "//evil.example/path",
          "///evil.example/path",
          "/\\evil.example/path",
          "/\\/evil.example/path",
          "//\\evil.example/path",
        ]) {
          const r = await request(port, `${target}?a=1&token=${secret}`);
          // Node's HTTP parser refuses a backslash in the request target itself: no redirect at all.
          if (target.includes("\\") && r.status === 400) continue;
          expect(r.status, target).toBe(303);
          const location = String(r.headers.location);
          // Read as a browser reads it: a path on this origin.
          expect(new URL(location, origin).origin, `${target} → ${location}`).toBe(origin);
          expect(location, target).toMatch(/^\/(?![/\\])/);
          expect(location, target).toMatch(/evil\.example\/path\?a=1$/);
        }
        expect(stderr()).toBe("");
      },
    );
  });

  it("--allow-host NAME matches on the listening port; NAME:PORT matches that port exactly (a port-less Host for :80 or :443); a malformed one exits 2", async () => {
    const args = ["--allow-host", "named.example", "--allow-host", "Proxy.Example:8443"];
    args.push("--allow-host", "tunnel.example:443", "--allow-host", "[fd00::1]:9000");
    await withServer(await startServe(runtime, db, args, env), async ({ port }) => {
      const status = async (host: string) => (await request(port, "/health", { headers: { host } })).status;
      expect(await status(`named.example:${port}`)).toBe(200);
      expect(await status("named.example:8443")).toBe(403);
      expect(await status("proxy.example:8443")).toBe(200);
      expect(await status(`proxy.example:${port}`)).toBe(403);
      expect(await status("proxy.example")).toBe(403);
      expect(await status("tunnel.example")).toBe(200);
      expect(await status("tunnel.example:443")).toBe(200);
      expect(await status(`tunnel.example:${port}`)).toBe(403);
      expect(await status("[fd00::1]:9000")).toBe(200);
      expect(await status(`[fd00::1]:${port}`)).toBe(403);
    });
    for (const bad of ["a b", "name:99999", "name:0", "name:x", "http://name", "name:80/path", "[fd00::1"]) {
      const r = cli(["--db", db, "serve", "--port", "0", "--allow-host", bad], { runtime, env });
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain("--allow-host");
      expect(r.stdout, bad).not.toContain("http://");
    }
  });
});
