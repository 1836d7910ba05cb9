/**
 * `sessiondb serve` as a real subprocess for the serve tests: start it on a runtime with
 * `--port 0`, read the address it prints, talk to it over node:http (which, unlike fetch, lets a
 * test send any Host header), stop it with a signal.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { CLI, ROOT_BIN } from "./helpers.js";

export interface Served {
  child: ChildProcess;
  /** The address line exactly as printed (with `?token=` when the server made one). */
  printed: string;
  port: number;
  token: string | undefined;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Start `<runtime> dist/cli.js --db DB serve --port 0 ...args` and wait for its address. */
export async function startServe(
  runtime: string[],
  db: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Served> {
  const [exe, ...pre] = runtime;
  const child = spawn(exe as string, [...pre, CLI, "--db", db, "serve", "--port", "0", ...args], {
    env: { ...process.env, NO_COLOR: "1", SESSIONDB_SERVE_TOKEN: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const printed = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve printed no address in 30 s: ${out} ${err}`)),
      30_000,
    );
    const check = () => {
      const m = /^sessiondb serve: (http:\/\/\S+)$/m.exec(out);
      // Both lines: the address, then what is served (a pipe may deliver them apart).
      if (m && /Ctrl-C stops$/m.test(out)) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    child.stdout?.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before printing an address: ${out} ${err}`));
    });
  });
  const url = new URL(printed);
  return {
    child,
    printed,
    port: Number(url.port),
    token: url.searchParams.get("token") ?? undefined,
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      child.kill("SIGTERM");
      return await exited;
    },
  };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Collect `res` whole, then hand it to `done`. */
function replyOf(res: http.IncomingMessage, done: (reply: Reply) => void): void {
  let body = "";
  res.setEncoding("utf8");
  res.on("data", (d: string) => {
    body += d;
  });
  res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
}

/** One request to 127.0.0.1:port (the only address the tests use); Host defaults to 127.0.0.1:port. */
export function request(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        headers: {
          host: `127.0.0.1:${port}`,
          ...(options.body !== undefined
            ? { "content-length": String(Buffer.byteLength(options.body)) }
            : {}),
          ...options.headers,
        },
      },
      (res) => replyOf(res, resolve),
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Runtimes the serve HTTP tests run on (those installed here). */
interface ServeRuntime {
  name: string;
  runtime: string[];
  env: Record<string, string>;
}

export const SERVE_RUNTIMES: ServeRuntime[] = (
  [
    {
      name: "node + better-sqlite3",
      runtime: [process.env.SESSIONDB_HOST_NODE || "/usr/bin/node"],
      env: { SESSIONDB_DRIVER: "better-sqlite3" },
    },
    {
      name: "node 24 + node:sqlite",
      runtime: [path.join(ROOT_BIN, "node")],
      env: { SESSIONDB_DRIVER: "node:sqlite" },
    },
    { name: "bun", runtime: [path.join(ROOT_BIN, "bun")], env: {} },
    { name: "deno", runtime: [path.join(ROOT_BIN, "deno"), "run", "-A"], env: {} },
  ] as ServeRuntime[]
).filter((t) => fs.existsSync(t.runtime[0] as string));

/**
 * A POST whose body is `prefix` followed by filler up to `bytes` in all, written as the server
 * takes it (never whole in memory here): with a Content-Length, or chunked (`chunked: true`, no
 * length). Resolves with the reply as soon as it is complete and stops sending then; a server
 * that drops the connection without a reply rejects it.
 */
export function upload(
  port: number,
  path: string,
  options: { prefix: string; bytes: number; chunked?: boolean; headers?: Record<string, string> },
): Promise<Reply & { sent: number }> {
  const filler = Buffer.alloc(64 * 1024, "a");
  return new Promise((resolve, reject) => {
    let sent = 0;
    let replied = false;
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: {
          host: `127.0.0.1:${port}`,
          ...(options.chunked
            ? { "transfer-encoding": "chunked" }
            : { "content-length": String(options.bytes) }),
          ...options.headers,
        },
      },
      (res) =>
        replyOf(res, (reply) => {
          replied = true;
          resolve({ ...reply, sent });
          req.destroy();
        }),
    );
    // Once the reply is in, a reset or broken pipe from the server is expected: it stopped reading.
    req.on("error", (error) => {
      if (!replied) reject(error);
    });
    const write = () => {
      while (!replied && sent < options.bytes) {
        const chunk =
          sent === 0
            ? Buffer.from(options.prefix)
            : filler.subarray(0, Math.min(filler.length, options.bytes - sent));
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", write);
      }
      if (!replied) req.end();
    };
    write();
  });
}

/** The most memory a process has held so far (VmHWM, in bytes); undefined where /proc is missing. */
export function peakMemory(pid: number | undefined): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
