/**
 * Offline stand-in for `jsr:@std/path@1.0`, which @db/sqlite 0.13 imports only for
 * `fromFileUrl` (opening a database given as a file: URL). POSIX paths only.
 */
export function fromFileUrl(url: string | URL): string {
  const parsed = url instanceof URL ? url : new URL(url);
  if (parsed.protocol !== "file:") throw new TypeError(`Must be a file URL: ${String(url)}`);
  return decodeURIComponent(parsed.pathname.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"));
}
