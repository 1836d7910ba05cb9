/**
 * The web app: one Hono app, served by each runtime's own server (see listen.ts). Routes are
 * reads, and with --allow-write (the guard then carries a CSRF token) three form posts: rename,
 * archive/unarchive and delete a session. Every store call is awaited.
 */
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Runtime } from "../runtime.js";
import type { CliStore } from "../server.js";
import { ASSET_URL, ASSETS } from "./assets.js";
import { errorPage } from "./errors.js";
import { type Site, sessionHref } from "./layout.js";
import { healthPage } from "./pages/health.js";
import { searchPage } from "./pages/search.js";
import { sessionsPage } from "./pages/sessions.js";
import { pageOf, rawContent, transcriptParts } from "./pages/transcript.js";
import { usagePage } from "./pages/usage.js";
import { BadRequest, optionalId, type Params } from "./params.js";
import { type Guard, guard, headers, type ServeEnv } from "./security.js";
import { streamHtml } from "./stream.js";

export interface AppInput {
  store: CliStore;
  /** The runtime serving the pages (for the health page). */
  runtime: Pick<Runtime, "name" | "version">;
  /** A file store's path (the health page reads its FTS-rebuild lock record), or undefined on a server. */
  storeFile: string | undefined;
  /** The store's file name, or the server's host (pages show this, never the full path or URL). */
  storeName: string;
  guard: Guard;
  /** Where unexpected failures are reported (the server's stderr). */
  log(line: string): void;
}

/** The 404 page for a session or message that is not in the store. */
const MISSING: [404, string, string] = [
  404,
  "Not found",
  "There is no such session or message in this store.",
];

/** Store errors the reader can act on, by their stable code: 503 for what passes on its own
 * (retry), 409 for a state of the store that must be fixed first, 4xx for the request itself. */
const KNOWN: Record<string, [ContentfulStatusCode, string, string]> = {
  STORE_BUSY: [
    503,
    "Store busy",
    "Another process holds a lock on the store. Nothing was changed; reload in a moment.",
  ],
  STORE_READONLY: [
    409,
    "Store not writable",
    "The store cannot be written: its file was moved or deleted, or it is not writable. Nothing was changed. Restart the server on the store (or give it write permission) to make changes.",
  ],
  // A session deleted between this request's look-up and its change.
  SESSION_NOT_FOUND: MISSING,
  INVALID_INPUT: [400, "Bad request", "A parameter of this request is not valid."],
};

export function createApp({
  store,
  runtime,
  storeFile,
  storeName,
  guard: rules,
  log,
}: AppInput): Hono<ServeEnv> {
  const app = new Hono<ServeEnv>();
  const site: Site = { store: storeName, writable: rules.csrf !== undefined };
  app.use(headers);
  app.use(guard(rules));

  const params = (c: {
    req: { query(name: string): string | undefined; queries(name: string): string[] | undefined };
  }): Params => ({
    one: (name) => c.req.query(name),
    many: (name) => c.req.queries(name) ?? [],
  });
  const session = async (id: string) => await store.getSession(id);
  const missing = (c: Parameters<typeof errorPage>[0]) => errorPage(c, ...MISSING);

  app.get("/", (c) => c.redirect("/sessions"));
  app.get("/favicon.ico", (c) => c.redirect(ASSET_URL.icon, 301));
  app.get("/sessions", async (c) => c.html((await sessionsPage(store, params(c), site)).toString()));
  app.get("/sessions/:id", async (c) => {
    const found = await session(c.req.param("id"));
    if (!found) return missing(c);
    const after = optionalId(c.req.query("after"), "after");
    return streamHtml(c, transcriptParts(store, found, after, site, rules.csrf), (error) =>
      log(
        `sessiondb serve: ${c.req.path} failed while streaming: ${(error as Error)?.stack ?? String(error)}`,
      ),
    );
  });
  app.get("/sessions/:id/messages/:mid", async (c) => {
    const found = await session(c.req.param("id"));
    const id = optionalId(c.req.param("mid"), "message");
    if (!found || id === undefined) return missing(c);
    const after = await pageOf(store, found, id);
    if (after === null) return missing(c);
    const base = `/sessions/${encodeURIComponent(found.id)}`;
    return c.redirect(`${base}${after === undefined ? "" : `?after=${after}`}#m-${id}`, 302);
  });
  app.get("/sessions/:id/messages/:mid/raw", async (c) => {
    const found = await session(c.req.param("id"));
    const id = optionalId(c.req.param("mid"), "message");
    const text = !found || id === undefined ? undefined : await rawContent(store, found.id, id);
    if (text === undefined) return missing(c);
    // Plain text, sandboxed: even a browser that sniffed it could run nothing from it.
    c.header("Content-Security-Policy", "sandbox; default-src 'none'");
    return c.text(text);
  });
  if (rules.csrf !== undefined) {
    // Post/redirect/get: every change answers 303 to the page that shows its result. The guard
    // has read the form (size-capped) and checked its CSRF token.
    const field = (c: { get(key: "form"): URLSearchParams }, name: string) =>
      c.get("form").get(name) ?? undefined;
    app.post("/sessions/:id/rename", async (c) => {
      const found = await session(c.req.param("id"));
      if (!found) return missing(c);
      const title = (field(c, "title") ?? "").trim();
      await store.updateSession(found.id, { title: title === "" ? null : title });
      return c.redirect(sessionHref(found.id), 303);
    });
    app.post("/sessions/:id/archive", async (c) => {
      const found = await session(c.req.param("id"));
      if (!found) return missing(c);
      const archived = field(c, "archived");
      if (archived !== "1" && archived !== "0") throw new BadRequest('"archived" must be 1 or 0');
      await store.updateSession(found.id, { archived: archived === "1" });
      return c.redirect(sessionHref(found.id), 303);
    });
    app.post("/sessions/:id/delete", async (c) => {
      const found = await session(c.req.param("id"));
      if (!found) return missing(c);
      if (field(c, "confirm") !== found.id) {
        throw new BadRequest("to delete a session, type its id exactly into the confirmation field");
      }
      await store.deleteSession(found.id);
      return c.redirect("/sessions", 303);
    });
  }
  app.get("/search", async (c) => c.html((await searchPage(store, params(c), site)).toString()));
  app.get("/usage", async (c) => c.html((await usagePage(store, params(c), site)).toString()));
  app.get("/health", async (c) => c.html((await healthPage(store, runtime, site, storeFile)).toString()));
  app.get("/assets/:name", (c) => {
    const asset = ASSETS.get(c.req.param("name"));
    if (!asset) return errorPage(c, 404, "Not found", "There is no such asset.");
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    return c.body(asset.body, 200, { "Content-Type": asset.type });
  });

  app.notFound((c) => errorPage(c, 404, "Not found", "There is no page at this address."));
  app.onError((error, c) => {
    if (error instanceof BadRequest) return errorPage(c, 400, "Bad request", error.message);
    const code = String((error as { code?: unknown }).code ?? "");
    const known = KNOWN[code];
    if (known) return errorPage(c, ...known);
    log(
      `sessiondb serve: ${c.req.method} ${new URL(c.req.url).pathname} failed: ${error.stack ?? error.message}`,
    );
    return errorPage(
      c,
      500,
      "Something went wrong",
      "The page could not be rendered. The server's terminal has the details.",
    );
  });
  return app;
}
