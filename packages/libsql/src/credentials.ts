/**
 * The credentials a connection carries — userinfo and an `authToken` parameter in its URL, the
 * `authToken` option — kept out of every error this package hands back. Messages name the server
 * by `displayUrl` (core), which never shows them; this module cleans the text this package does
 * not write: @libsql/client's and the runtime's own errors (a fetch failure may quote the URL it
 * was given, credentials and all), which travel in our messages and as their `cause`.
 */
import { displayUrl } from "@sessiondb/core/driver";

/** Anything URL-shaped inside a message (up to a space, a quote or a closing bracket). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>(){}]+/gi;

/** Shorter credentials are cut out only where they appear as part of a URL. */
const MIN_SECRET_LENGTH = 4;

/** How far down an error's cause chain the cleaning goes (chains are two or three deep). */
const MAX_DEPTH = 8;

export interface Credentials {
  /** `text` with every URL in it shown by `displayUrl` and every credential cut out. */
  scrub(text: string): string;
  /** `error` (returned as is) with the credentials cut out of its message and stack, and out of
   * every error along its cause chain. Errors are changed in place: they are the client's,
   * created for this request, and handed on only through this package. */
  scrubError<T>(error: T): T;
}

/** The credentials of a connection to `url` with `authToken`. */
export function credentialsOf(url: string, authToken: string | undefined): Credentials {
  const secrets = new Set<string>();
  const add = (value: string | null | undefined) => {
    // A value this short would blank out ordinary words; inside a URL it goes with the URL's
    // userinfo or query, whatever its length.
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    secrets.add(value);
    try {
      secrets.add(decodeURIComponent(value));
    } catch {
      // Not percent-encoded text: the raw value is enough.
    }
  };
  add(authToken);
  try {
    const parsed = new URL(url);
    add(parsed.searchParams.get("authToken"));
    add(parsed.password);
    if (parsed.username || parsed.password) {
      secrets.add(`${parsed.username}${parsed.password ? `:${parsed.password}` : ""}@`);
    }
  } catch {
    // A URL the platform cannot parse is not connected to; displayUrl still hides its userinfo.
  }
  // Longest first, so that a userinfo is cut whole before the password inside it.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  const scrub = (text: string): string => {
    let out = text.replace(URL_IN_TEXT, (found) => displayUrl(found));
    for (const secret of ordered) out = out.split(secret).join(secret.endsWith("@") ? "" : "[redacted]");
    return out;
  };
  const scrubError = <T>(error: T): T => {
    const seen = new Set<unknown>();
    const visit = (current: unknown, depth: number): void => {
      if (!(current instanceof Error) || seen.has(current) || depth > MAX_DEPTH) return;
      seen.add(current);
      for (const key of ["message", "stack"] as const) {
        const text = current[key];
        if (typeof text !== "string") continue;
        const clean = scrub(text);
        if (clean === text) continue;
        try {
          current[key] = clean;
        } catch {
          // A frozen error keeps its text; ours never are.
        }
      }
      visit(current.cause, depth + 1);
      if (current instanceof AggregateError) for (const inner of current.errors) visit(inner, depth + 1);
    };
    visit(error, 0);
    return error;
  };
  return { scrub, scrubError };
}
