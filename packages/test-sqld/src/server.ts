/**
 * A real sqld node for tests: a primary (with a gRPC port replicas connect to) or a replica of
 * one, on free 127.0.0.1 ports, its data in a folder of its own, started as a child process,
 * ready when it answers a query, stopped by pid. Only node: modules and fetch, so it runs the
 * same under vitest (Node), `bun test` and `deno test`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { SqldAuth } from "./auth.js";
import { sqldAvailability } from "./binary.js";
import { stopProcess } from "./process.js";

/** Thrown by `startSqld` where the binary cannot run; `reason` is what a skip should say. */
export class SqldUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`sqld cannot run here: ${reason}`);
    this.name = "SqldUnavailableError";
  }
}

export interface SqldOptions {
  /** Start a replica of this primary (`--primary-grpc-url`) instead of a primary. */
  replicaOf?: SqldServer;
  /** Folder for the node's data (created if missing, kept on stop). Default: a new temporary
   * folder, removed by `stop()`. */
  dir?: string;
  /** Require a JWT signed by this key pair on every request, as a Turso database does (see
   * `sqldAuth()`); the readiness probe sends `auth.token()`. */
  auth?: SqldAuth;
  /** How long to wait for the node to answer, in ms (default 30 s). */
  readyTimeoutMs?: number;
  /** sqld exits after this many seconds without a request: a guard against a test runner that
   * dies without stopping it (default 900; 0 turns it off). */
  idleShutdownS?: number;
  /** More sqld arguments. */
  args?: readonly string[];
}

/** One running sqld node. */
export interface SqldServer {
  readonly role: "primary" | "replica";
  /** The running process's pid (a new one after `restart()`). */
  readonly pid: number;
  /** Whether the process is running. */
  readonly running: boolean;
  /** Hrana over HTTP: `http://127.0.0.1:<port>`. */
  readonly httpUrl: string;
  /** Hrana over WebSocket on the same port: `ws://127.0.0.1:<port>`. */
  readonly wsUrl: string;
  /** Primary only: the gRPC URL replicas connect to. */
  readonly grpcUrl: string | undefined;
  /** The node's folder; its database lives in `dbPath` (sqld's own layout inside). */
  readonly dir: string;
  readonly dbPath: string;
  /** What the process printed (the last 256 KiB, from `sqld.log` in `dir`), for failure
   * messages. */
  log(): string;
  /** Send `signal` (default SIGKILL: `kill -9`) to the pid and wait until the process is gone
   * (SIGKILL after 30 s if another signal did not end it). */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGSTOP, returning once every thread of the process has stopped (`stopProcess`): a stuck
   * node, which the kernel still takes connections and requests for but which answers none. */
  pause(): void;
  /** SIGCONT after `pause()`; harmless when the process is gone. */
  resume(): void;
  /** Start the node again after `kill`, on the same ports and folder; resolves when it answers. */
  restart(): Promise<void>;
  /** End the process and wait until it is gone: SIGKILL and remove the folder if `startSqld`
   * made it; SIGTERM (SIGKILL after 3 s) and keep it if it was `dir`. Harmless twice. */
  stop(): Promise<void>;
}

const LOG_LIMIT = 256 * 1024;
const STOP_GRACE_MS = 3_000;
const KILL_GRACE_MS = 30_000;
/** Pids of nodes not yet stopped, killed if the test process exits without stopping them. */
const live = new Set<number>();
let exitHookInstalled = false;

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Start a sqld node; throws `SqldUnavailableError` where the binary cannot run. */
export async function startSqld(options: SqldOptions = {}): Promise<SqldServer> {
  const available = sqldAvailability();
  if (!available.ok) throw new SqldUnavailableError(available.reason);
  const primary = options.replicaOf;
  if (primary && !primary.grpcUrl) throw new Error("startSqld: replicaOf must be a primary");
  const owned = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "sessiondb-sqld-"));
  mkdirSync(dir, { recursive: true });
  const dbPath = join(dir, "data.sqld");
  const keyFile = join(dir, "auth-key.pem");
  if (options.auth) writeFileSync(keyFile, options.auth.publicKeyPem);

  // sqld writes to a file, never to a pipe: a test that runs the CLI with spawnSync blocks the
  // process that would drain a pipe, and sqld, its pipe full, stopped answering every request
  // (it logs each WebSocket connection, with a backtrace when the client just hangs up).
  const logFile = join(dir, "sqld.log");
  /** Where the output of the latest launch starts in the log file. */
  let launchStart = 0;
  const readLog = (from: number): string => {
    try {
      const bytes = readFileSync(logFile);
      return bytes.subarray(Math.max(from, bytes.length - LOG_LIMIT)).toString("utf8");
    } catch {
      return "";
    }
  };
  const log = () => readLog(0);
  const launchLog = () => readLog(launchStart);
  let child: ChildProcess | undefined;
  let httpPort = 0;
  let grpcPort = 0;
  const args = () => [
    "--db-path",
    dbPath,
    "--http-listen-addr",
    `127.0.0.1:${httpPort}`,
    "--no-welcome",
    ...(primary
      ? ["--primary-grpc-url", primary.grpcUrl as string]
      : ["--grpc-listen-addr", `127.0.0.1:${grpcPort}`]),
    ...(options.auth ? ["--auth-jwt-key-file", keyFile] : []),
    ...((options.idleShutdownS ?? 900) > 0
      ? ["--idle-shutdown-timeout-s", String(options.idleShutdownS ?? 900)]
      : []),
    ...(options.args ?? []),
  ];
  const launch = async (): Promise<void> => {
    launchStart = fileSize(logFile);
    const output = openSync(logFile, "a");
    let started: ChildProcess;
    try {
      started = spawn(available.binary, args(), { cwd: dir, stdio: ["ignore", output, output] });
    } finally {
      closeSync(output);
    }
    started.on("error", (error) =>
      writeFileSync(logFile, `\n[spawn error] ${error.message}\n`, { flag: "a" }),
    );
    if (started.pid !== undefined) live.add(started.pid);
    installExitHook();
    child = started;
    await waitReady(started, `http://127.0.0.1:${httpPort}`, {
      timeoutMs: options.readyTimeoutMs ?? 30_000,
      token: options.auth?.token(),
      log: launchLog,
    });
  };
  // A free port can be taken between finding it and sqld binding it: try fresh ports a few times.
  for (let attempt = 1; ; attempt++) {
    httpPort = await freePort();
    grpcPort = primary ? 0 : await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      if (child) await terminate(child, "SIGKILL", 0);
      if (attempt >= 3 || !/address already in use|AddrInUse/i.test(launchLog())) {
        if (owned) rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  let stopped = false;
  const server: SqldServer = {
    role: primary ? "replica" : "primary",
    get pid() {
      return child?.pid ?? -1;
    },
    get running() {
      return child?.pid !== undefined && pidAlive(child.pid);
    },
    httpUrl: `http://127.0.0.1:${httpPort}`,
    wsUrl: `ws://127.0.0.1:${httpPort}`,
    grpcUrl: primary ? undefined : `http://127.0.0.1:${grpcPort}`,
    dir,
    dbPath,
    log,
    async kill(signal = "SIGKILL") {
      if (child) await terminate(child, signal, KILL_GRACE_MS);
    },
    pause() {
      if (child?.pid !== undefined) stopProcess(child.pid);
    },
    resume() {
      if (child?.pid !== undefined && pidAlive(child.pid)) process.kill(child.pid, "SIGCONT");
    },
    async restart() {
      if (server.running) throw new Error(`sqld ${server.role} is still running (pid ${server.pid})`);
      // The same ports: retry while the old sockets are being released.
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await launch();
          return;
        } catch (error) {
          if (child) await terminate(child, "SIGKILL", 0);
          if (Date.now() > deadline || !/address already in use|AddrInUse/i.test(launchLog())) throw error;
          await sleep(200);
        }
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // A temporary folder is deleted next: nothing to shut down gracefully for.
      if (child) await terminate(child, owned ? "SIGKILL" : "SIGTERM", STOP_GRACE_MS);
      if (owned) rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

/** Start a primary and a replica of it; `stop()` stops both (replica first). */
export async function startSqldPair(
  options: Omit<SqldOptions, "replicaOf" | "dir"> = {},
): Promise<{ primary: SqldServer; replica: SqldServer; stop(): Promise<void> }> {
  const primary = await startSqld(options);
  try {
    const replica = await startSqld({ ...options, replicaOf: primary });
    return {
      primary,
      replica,
      async stop() {
        await replica.stop();
        await primary.stop();
      },
    };
  } catch (error) {
    await primary.stop();
    throw error;
  }
}

/** Ready when `SELECT 1` over Hrana HTTP answers; fails at once if the process exits. */
async function waitReady(
  child: ChildProcess,
  httpUrl: string,
  { timeoutMs, token, log }: { timeoutMs: number; token: string | undefined; log: () => string },
) {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`sqld exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${log()}`);
    }
    try {
      const response = await fetch(`${httpUrl}/v2/pipeline`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({
          requests: [{ type: "execute", stmt: { sql: "SELECT 1" } }, { type: "close" }],
        }),
        signal: AbortSignal.timeout(2_000),
      });
      const body = await response.text();
      if (response.ok && body.includes('"type":"ok"')) return;
      last = `HTTP ${response.status}: ${body.slice(0, 200)}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(50);
  }
  throw new Error(`sqld at ${httpUrl} not ready after ${timeoutMs} ms (${last}):\n${log()}`);
}

/** A port nothing listens on right now (the kernel's choice for port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Whether `pid` is in the process table (a zombie not yet reaped counts). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Send `signal` to the child's pid and wait until the pid is gone, sending SIGKILL after
 * `graceMs`. The pid decides, not the exit event: Deno has reported a child's exit while the
 * process was still running (after SIGTERM, with a client connection open).
 */
async function terminate(child: ChildProcess, signal: NodeJS.Signals, graceMs: number) {
  const pid = child.pid;
  if (pid === undefined || !pidAlive(pid)) return;
  process.kill(pid, signal);
  const started = Date.now();
  let killedAt = signal === "SIGKILL" ? started : undefined;
  while (pidAlive(pid)) {
    if (killedAt === undefined && Date.now() - started > graceMs) {
      process.kill(pid, "SIGKILL");
      killedAt = Date.now();
    }
    if (killedAt !== undefined && Date.now() - killedAt > 30_000) {
      throw new Error(`sqld pid ${pid} still exists 30 s after SIGKILL`);
    }
    await sleep(10);
  }
  live.delete(pid);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of live) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
}
