/**
 * The rules every request passes before a page is rendered:
 * - Host check: the Host header must name this server (a loopback name, or an address or name it
 *   was told it may be reached by). A DNS-rebinding page on another origin sends its own host
 *   name, so it is refused before it can read anything.
 * - Token: when the server listens beyond loopback (or a token is configured), every request but
 *   the public assets needs it — from `?token=` once (then an HttpOnly, SameSite=Strict cookie),
 *   or `Authorization: Bearer`.
 * - Read-only unless started with --allow-write: only GET and HEAD exist; anything else is 405.
 *   With writes allowed, POST also exists, and only for forms this server rendered: the request
 *   must come from this origin (`Origin` / `Sec-Fetch-Site`, when the browser sends them) and
 *   carry the server's CSRF token in its `csrf` field — another site's page can post a form to a
 *   loopback address, but it cannot read the token out of our pages.
 * - Headers: a strict Content-Security-Policy (own scripts and styles only, no inline code), no
 *   framing, no sniffing, no referrer, nothing cached.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { errorPage } from "./errors.js";

export interface Guard {
  /** Host names (lower case; IPv6 in brackets) the Host header may carry. */
  hosts: ReadonlySet<string>;
  /** The port the server is bound to (known once it listens). */
  port(): number | undefined;
  /** Required token, or undefined when none is. */
  token: string | undefined;
  /** The CSRF token write forms carry; undefined when the server is read-only (no POST). */
  csrf: string | undefined;
}

/** `Host` header → [host name, port]; undefined when malformed. */
export function parseHost(header: string | undefined): [string, number] | undefined {
  const m = header ? /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(header.trim()) : null;
  if (!m) return undefined;
  return [(m[1] as string).toLowerCase(), m[2] ? Number(m[2]) : 80];
}

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
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return undefined;
}

function tokenFrom(c: Context, guard: Guard): string | undefined {
  const auth = c.req.header("authorization");
  if (auth?.startsWith("Bearer ")) return auth.slice(7).trim();
  return readCookie(c.req.header("cookie"), cookieName(guard.port()));
}

/** The middleware that enforces the rules above. */
export function guard(rules: Guard): MiddlewareHandler {
  return async (c, next) => {
    const host = parseHost(c.req.header("host"));
    if (!host || !rules.hosts.has(host[0]) || host[1] !== rules.port()) {
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
        return c.redirect(`${url.pathname}${url.search}`, 303);
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
    if (method === "POST" && !(await sameOriginForm(c, host, rules.csrf as string))) {
      return errorPage(
        c,
        403,
        "Form refused",
        "This change did not come from a form of this server (or the server restarted since the page was loaded). Nothing was changed; reload the page and try again.",
      );
    }
    await next();
  };
}

/** A POST from a form this server rendered: same origin as far as the browser says, and the
 * server's CSRF token in the form body. */
async function sameOriginForm(c: Context, [name, port]: [string, number], csrf: string): Promise<boolean> {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin") return false;
  // Under our no-referrer policy a browser sends `Origin: null` even for its own forms; then the
  // fetch metadata above has already said "same-origin".
  const origin = c.req.header("origin");
  const ours = `http://${name}${port === 80 ? "" : `:${port}`}`;
  if (origin !== undefined && origin !== ours && !(origin === "null" && site === "same-origin")) return false;
  if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header("content-type") ?? "")) return false;
  const given = (await c.req.parseBody()).csrf;
  return typeof given === "string" && sameToken(given, csrf);
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
