import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as os from "node:os";
import * as nodePath from "node:path";
import { defineCommand } from "../command.js";
import { EXIT, ExitError, redactSecrets, UsageError } from "../exit.js";
import { print } from "../format.js";
import { integer } from "../numbers.js";
import { openFor } from "../open.js";
import { writeErr } from "../output.js";
import { detectRuntime } from "../runtime.js";
import { hostEntry } from "../serve/hosts.js";
import { isLoopback, LOOPBACK_HOSTS } from "../serve/loopback.js";
import { visible } from "../visible.js";

const DEFAULT_PORT = 7345;

/** Host entries a server bound to `host` may be addressed by (see serve/hosts.ts). */
function allowedHosts(host: string, extra: string[]): Set<string> {
  const bracket = (h: string) => (h.includes(":") && !h.startsWith("[") ? `[${h}]` : h).toLowerCase();
  const given = extra.map((value) => {
    const entry = hostEntry(value);
    if (entry === undefined) {
      throw new UsageError(
        `--allow-host expects a host name or address, optionally with :PORT (1-65535), got ${JSON.stringify(value)}`,
      );
    }
    return entry;
  });
  const hosts = new Set([...LOOPBACK_HOSTS, bracket(host), ...given]);
  if (!isLoopback(host)) {
    hosts.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces()))
      for (const address of list ?? []) hosts.add(bracket(address.address));
  }
  return hosts;
}

/** Open `url` in the desktop's browser; a failure to do so is only reported (without the
 * address again: it may carry the token, which is printed once). */
function openBrowser(url: string): void {
  const failed = "sessiondb serve: could not start a browser; open the address above yourself\n";
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args as string[], { stdio: "ignore", detached: true });
    child.on("error", () => process.stderr.write(failed));
    child.unref();
  } catch {
    process.stderr.write(failed);
  }
}

function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve(signal));
  });
}

export const serve = defineCommand({
  name: "serve",
  usage: "serve [--port N] [--host H] [--allow-host NAME]… [--open] [--allow-write]",
  options: {
    port: {
      type: "string",
      value: "N",
      default: String(DEFAULT_PORT),
      parse: integer({ max: 65535 }),
      help: `port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)`,
    },
    host: {
      type: "string",
      value: "H",
      help: "address to listen on (default 127.0.0.1, this machine only)",
    },
    "allow-host": {
      type: "string",
      multiple: true,
      value: "NAME",
      help: "another name the server may be reached by (checked against the Host header, which defeats DNS rebinding) on the port it listens on; NAME:PORT for that port instead (a proxy or tunnel); repeatable",
    },
    open: { type: "boolean", help: "open the address in the browser" },
    "allow-write": {
      type: "boolean",
      help: "open the store writable and let session pages rename, archive and delete sessions (forms protected against cross-site posts)",
    },
  },
  notes: [
    "Prints the address it listens on, then serves until Ctrl-C. The store is opened read-only",
    "unless --allow-write is given.",
    "Beyond loopback every request needs a token: a random one is printed once, inside the address,",
    "or set SESSIONDB_SERVE_TOKEN (which also makes a loopback server ask for it).",
  ].join("\n"),
  args: { min: 0, max: 0, names: "" },
  json: false,
  noJson: "it serves web pages until stopped; for JSON, run the read commands with --json",
  async run({ values, runtime }) {
    const port = values.port;
    const host = values.host === undefined ? "127.0.0.1" : values.host.replace(/^\[|\]$/g, "");
    if (!/^[\w.:-]+$/.test(host))
      throw new UsageError(`--host expects an address or host name, got ${JSON.stringify(host)}`);
    // Checked before the store is opened: a bad value is a usage error, nothing to close.
    const hosts = allowedHosts(host, values["allow-host"] ?? []);
    const fromEnv = process.env.SESSIONDB_SERVE_TOKEN || undefined;
    const token = fromEnv ?? (isLoopback(host) ? undefined : randomBytes(24).toString("base64url"));

    // The web app (Hono and the pages) loads only for this command, not on every CLI start.
    const [{ createApp }, { listen }] = await Promise.all([
      import("../serve/app.js"),
      import("../serve/listen.js"),
    ]);
    const writes = values["allow-write"] === true;
    const { store, where, shown } = await openFor(runtime, values, writes ? "write" : "read");
    const rt = detectRuntime();
    let bound: number | undefined;
    const app = createApp({
      store,
      runtime: rt,
      storeFile: where.kind === "file" ? where.path : undefined,
      storeName: where.kind === "file" ? nodePath.basename(where.path) : new URL(where.url).host,
      guard: {
        hosts,
        port: () => bound,
        token,
        csrf: writes ? randomBytes(24).toString("base64url") : undefined,
      },
      // A failure's stack may quote the server URL with its credentials: never logged. A line
      // quotes the decoded request path (and stored text in error messages): its control
      // characters are shown escaped, so a request cannot drive the operator's terminal.
      log: (line) => writeErr(`${visible(redactSecrets(line))}\n`),
    });
    let server: Awaited<ReturnType<typeof listen>>;
    try {
      server = await listen(rt.name, app.fetch, host, port);
    } catch (error) {
      await store.close();
      const code = String((error as { code?: unknown }).code ?? (error as Error).name ?? "");
      if (/EADDRINUSE|AddrInUse/i.test(code) || /address.*in use/i.test(String((error as Error).message))) {
        throw new ExitError(
          EXIT.FAILURE,
          `port ${port} on ${host} is in use; pick another with --port N (0 for any free port)`,
          "ADDRESS_IN_USE",
        );
      }
      throw error;
    }
    bound = server.port;
    const urlHost = host.includes(":") ? `[${host}]` : host;
    const url = `http://${urlHost}:${bound}/`;
    const withToken = token && !fromEnv ? `${url}?token=${token}` : url;
    print(`sessiondb serve: ${withToken}`);
    print(
      `${writes ? "read-write" : "read-only"} view of ${shown}${token ? (fromEnv ? "; token from SESSIONDB_SERVE_TOKEN" : "; the token is printed only here") : ""}; Ctrl-C stops`,
    );
    if (values.open) openBrowser(withToken);
    await stopSignal();
    await server.close();
    await store.close();
    return EXIT.OK;
  },
});
