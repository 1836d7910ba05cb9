/**
 * The rules every request passes before a page is rendered:
 * - Host check: the Host header must name this server (a loopback name, or an address or name it
 *   was told it may be reached by; see hosts.ts for ports). A DNS-rebinding page on another origin
 *   sends its own host name, so it is refused before it can read anything.
 * - Token: when the server listens beyond loopback (or a token is configured), every request but
 *   the public assets needs it — from `?token=` once (then an HttpOnly, SameSite=Strict cookie),
 *   or `Authorization: Bearer`.
 * - Read-only unless started with --allow-write: only GET and HEAD exist; anything else is 405.
 *   With writes allowed, POST also exists, and only for forms this server rendered: the request
 *   must come from this origin (`Origin` / `Sec-Fetch-Site`, when the browser sends them) and
 *   carry the server's CSRF token in its `csrf` field — another site's page can post a form to a
 *   loopback address, but it cannot read the token out of our pages. Everything that needs no
 *   body is checked first; the body is read only up to MAX_FORM_BYTES (413 past that), so a
 *   huge post cannot fill the server's memory.
 * - Headers: a strict Content-Security-Policy (own scripts and styles only, no inline code), no
 *   framing, no sniffing, no referrer, nothing cached.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { errorPage } from "./errors.js";
import { hostAllowed, parseHost } from "./hosts.js";

export interface Guard {
  /** Host entries the Host header may match: `name` (on the listening port) or `name:port`. */
  hosts: ReadonlySet<string>;
  /** The port the server is bound to (known once it listens). */
  port(): number | undefined;
  /** Required token, or undefined when none is. */
  token: string | undefined;
  /** The CSRF token write forms carry; undefined when the server is read-only (no POST). */
  csrf: string | undefined;
}

/** What the guard hands the write routes: the form it read and checked (POST only). */
export type ServeEnv = { Variables: { form: URLSearchParams } };

/** The largest form body a write accepts. The forms post a few short fields (a title, a session
 * id, the CSRF token); a larger body is refused with 413 without being read. */
export const MAX_FORM_BYTES = 64 * 1024;

function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

function cookieName(port: number | undefined): string {
  // Per port: two servers on one machine keep separate tokens (cookies ignore the port).
  return `sessiondb_token_${port ?? 0}`;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) {
      // A value that is not valid percent-encoding is no token (401), not a failure (500).
      try {
        return decodeURIComponent(part.slice(at + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function tokenFrom(c: Context, guard: Guard): string | undefined {
  const auth = c.req.header("authorization");
  if (auth?.startsWith("Bearer ")) return auth.slice(7).trim();
  return readCookie(c.req.header("cookie"), cookieName(guard.port()));
}

/** The middleware that enforces the rules above. */
export function guard(rules: Guard): MiddlewareHandler<ServeEnv> {
  return async (c, next) => {
    const host = parseHost(c.req.header("host"));
    if (!host || !hostAllowed(rules.hosts, rules.port(), host)) {
      return errorPage(
        c,
        403,
        "Host not allowed",
        "This server answers only to the addresses it was started for.",
      );
    }
    const method = c.req.method;
    const writes = rules.csrf !== undefined;
    if (method !== "GET" && method !== "HEAD" && !(writes && method === "POST")) {
      c.header("Allow", writes ? "GET, HEAD, POST" : "GET, HEAD");
      return writes
        ? errorPage(c, 405, "Method not allowed", "Changes are made with the forms on the session pages.")
        : errorPage(c, 405, "Read-only", "This server has no write routes: it only reads the store.");
    }
    const url = new URL(c.req.url);
    if (rules.token && !url.pathname.startsWith("/assets/")) {
      const fromQuery = url.searchParams.get("token");
      if (fromQuery !== null && sameToken(fromQuery, rules.token)) {
        url.searchParams.delete("token");
        c.header(
          "Set-Cookie",
          `${cookieName(rules.port())}=${encodeURIComponent(rules.token)}; Path=/; HttpOnly; SameSite=Strict`,
        );
        c.header("Cache-Control", "no-store");
        return c.redirect(`${samePath(url.pathname)}${url.search}`, 303);
      }
      const given = tokenFrom(c, rules);
      if (given === undefined || !sameToken(given, rules.token)) {
        return errorPage(
          c,
          401,
          "Token required",
          "Open the address the server printed when it started (it carries the token).",
        );
      }
    }
    if (method === "POST") {
      const refused = () =>
        errorPage(
          c,
          403,
          "Form refused",
          "This change did not come from a form of this server (or the server restarted since the page was loaded). Nothing was changed; reload the page and try again.",
        );
      if (!fromThisSite(c, host)) return refused();
      const form = await readForm(c);
      if (form === undefined) {
        return errorPage(
          c,
          413,
          "Form too large",
          `A change is a short form of at most ${MAX_FORM_BYTES / 1024} KB; this one is larger. Nothing was changed.`,
        );
      }
      const given = form.get("csrf");
      if (given === null || !sameToken(given, rules.csrf as string)) return refused();
      c.set("form", form);
    }
    await next();
  };
}

/** A path to redirect to on this server: leading slashes (or backslashes, which browsers read as
 * slashes) collapsed to one, since `//evil.example/x` in a Location header is another site. */
function samePath(pathname: string): string {
  return `/${pathname.replace(/^[/\\]+/, "")}`;
}

/** A POST as the forms of this server send it, as far as its headers tell: same origin by the
 * browser's word, and a urlencoded form. */
function fromThisSite(c: Context, [name, port]: [string, number | undefined]): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin") return false;
  // Under our no-referrer policy a browser sends `Origin: null` even for its own forms; then the
  // fetch metadata above has already said "same-origin". Behind a TLS proxy the page is https.
  const origin = c.req.header("origin");
  const authority = port === undefined ? name : `${name}:${port}`;
  const ours = origin === `http://${authority}` || origin === `https://${authority}`;
  if (origin !== undefined && !ours && !(origin === "null" && site === "same-origin")) return false;
  return /^application\/x-www-form-urlencoded\b/i.test(c.req.header("content-type") ?? "");
}

/** The form in the request's body, or undefined when the body is over MAX_FORM_BYTES: refused by
 * its Content-Length before any of it is read, or (chunked, or lying) as soon as it passes the
 * limit while being read. Either way the rest is never read. */
async function readForm(c: Context): Promise<URLSearchParams | undefined> {
  if (Number(c.req.header("content-length")) > MAX_FORM_BYTES) return undefined;
  const reader = c.req.raw.body?.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
    size += chunk.value.byteLength;
    if (size > MAX_FORM_BYTES) {
      await reader?.cancel().catch(() => {});
      return undefined;
    }
    text += decoder.decode(chunk.value, { stream: true });
  }
  return new URLSearchParams(text + decoder.decode());
}

/** Security headers on every response. */
export const headers: MiddlewareHandler = async (c, next) => {
  await next();
  // A route may set a stricter policy of its own (the plain-text view is sandboxed).
  if (!c.res.headers.has("Content-Security-Policy")) c.header("Content-Security-Policy", CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Cross-Origin-Resource-Policy", "same-origin");
  if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
};
