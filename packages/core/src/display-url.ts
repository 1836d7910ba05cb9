/**
 * `displayUrl(url)`: a database URL as a person may see it — in an error message, a report, a
 * log line. Credentials never reach a message: a URL can carry them as userinfo
 * (`https://user:password@host/`) or as a query parameter (`?authToken=…`), and whatever reads a
 * message (a terminal, a CI log, a bug report) is not trusted with them.
 *
 * What stays is what tells databases apart: scheme, host, port and path, plus `tls` (the one
 * other parameter a libSQL client takes; it says how the server is reached). Every other
 * parameter and any fragment go, since a parameter's meaning — secret or not — is unknown here.
 * A lone `/` path is dropped (`http://host:8080`). A `file:` URL is a local path, shown as
 * written without its query. Other text that does not parse as a URL keeps scheme, host and path
 * with everything up to the last `@` cut out of it: a malformed URL may still carry a password.
 */
export function displayUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
  if (scheme && scheme.toLowerCase() !== "file:") {
    try {
      const parsed = new URL(url);
      const path = parsed.pathname === "/" ? "" : parsed.pathname;
      const tls = parsed.searchParams.get("tls");
      return `${parsed.protocol}//${parsed.host}${path}${tls === null ? "" : `?tls=${encodeURIComponent(tls)}`}`;
    } catch {
      // Not a URL the platform parses: cut it by hand below.
    }
  }
  const beforeQuery = url.split(/[?#]/, 1)[0] ?? "";
  if (scheme?.toLowerCase() === "file:") return beforeQuery;
  const at = beforeQuery.lastIndexOf("@");
  if (at === -1) return beforeQuery;
  const authority = beforeQuery.indexOf("//");
  const start = authority === -1 ? (scheme?.length ?? 0) : authority + 2;
  return at < start ? beforeQuery : beforeQuery.slice(0, start) + beforeQuery.slice(at + 1);
}
