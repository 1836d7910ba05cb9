/**
 * Host rules: which `Host` headers name this server. An entry is a host name (lower case, IPv6 in
 * brackets) alone, matched on the port the server listens on, or `name:port`, matched on that port
 * only — for a reverse proxy or tunnel whose clients address it on a port of its own.
 */

/** `Host` header → [host name, port (undefined when the header names none)]; undefined when
 * malformed. */
export function parseHost(header: string | undefined): [string, number | undefined] | undefined {
  const m = header ? /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(header.trim()) : null;
  if (!m) return undefined;
  return [(m[1] as string).toLowerCase(), m[2] ? Number(m[2]) : undefined];
}

/** An `--allow-host` value (`name`, `name:port`, `[v6]:port` or a bare IPv6 address) as an entry;
 * undefined when it is none of those. */
export function hostEntry(value: string): string | undefined {
  const v = value.trim();
  // Two colons or more without brackets: an IPv6 address, which cannot carry a port that way.
  const parsed = parseHost(/:.*:/.test(v) && !v.startsWith("[") ? `[${v}]` : v);
  if (!parsed) return undefined;
  const [name, port] = parsed;
  if (port === undefined) return name;
  return port >= 1 && port <= 65535 ? `${name}:${port}` : undefined;
}

/** Does a parsed Host header name this server? A Host without a port is what a browser sends for
 * its scheme's default port: 80, or 443 behind a TLS-terminating proxy. */
export function hostAllowed(
  entries: ReadonlySet<string>,
  listening: number | undefined,
  [name, port]: [string, number | undefined],
): boolean {
  const ports = port === undefined ? [80, 443] : [port];
  if (ports.some((p) => entries.has(`${name}:${p}`))) return true;
  return entries.has(name) && (port ?? 80) === listening;
}
