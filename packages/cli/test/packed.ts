/**
 * The public packages as a user gets them: packed with `npm pack` and served, with every
 * third-party package the lockfile pins (from the machine's npm cache), by a registry on
 * 127.0.0.1. `npm i -g sessiondb` against it has exactly the layout and the dependency
 * resolution of the real thing, offline.
 *
 * better-sqlite3 gets a prebuilt binary the way users get one from prebuild-install, except that
 * it comes from a local folder (its documented `local-prebuilds` option) holding the binary this
 * checkout already built for the host Node, instead of a download: no network, no minute-long
 * compile per install.
 */

import { Buffer } from "node:buffer";
import { type SpawnOptions, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const PUBLIC = ["core", "runtime-node", "runtime-bun", "runtime-deno", "libsql", "formats", "cli"];

/** The host Node (Node 20 here and on CI): the one `npm test` was started with. */
export const HOST_NODE = process.env.SESSIONDB_HOST_NODE || "/usr/bin/node";

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run a command without blocking this process (the registry answers from it meanwhile). */
export function run(command: string, args: string[], options: SpawnOptions = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * An environment as a user's shell has it: the host Node first on PATH (not the pinned Node 24
 * that npm scripts put there), and none of the npm_* variables the outer `npm test` set.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|INIT_CWD$|SESSIONDB_)/i.test(key)) env[key] = value;
  }
  const rest = (process.env.PATH ?? "").split(path.delimiter).filter((p) => !p.includes("node_modules"));
  env.PATH = [path.dirname(HOST_NODE), ...rest].join(path.delimiter);
  return { ...env, NO_COLOR: "1", ...extra };
}

/** Pack every public package into `dir`; the tarball path by package name. */
export async function packAll(dir: string): Promise<Map<string, string>> {
  const r = await run(
    "npm",
    ["pack", "--json", "--pack-destination", dir, ...PUBLIC.flatMap((p) => ["-w", `packages/${p}`])],
    { cwd: REPO, env: userEnv() },
  );
  if (r.code !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  const packs = JSON.parse(r.stdout) as Array<{ name: string; filename: string }>;
  return new Map(packs.map((p) => [p.name, path.join(dir, p.filename)]));
}

/** The package.json inside an npm tarball (its first `<folder>/package.json`). */
function manifestOf(tarball: Buffer): Record<string, unknown> {
  const tar = gunzipSync(tarball);
  for (let at = 0; at + 512 <= tar.length; ) {
    const field = (from: number, length: number) =>
      tar
        .subarray(at + from, at + from + length)
        .toString("utf8")
        .replace(/\0.*$/s, "");
    const name = field(0, 100);
    if (!name) break;
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const full = field(345, 155) ? `${field(345, 155)}/${name}` : name;
    if (/^[^/]+\/package\.json$/.test(full)) {
      return JSON.parse(tar.subarray(at + 512, at + 512 + size).toString("utf8"));
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error("no package.json in the tarball");
}

/** A package-lock.json entry, as far as a registry document needs it. */
interface LockEntry {
  name?: string;
  version?: string;
  integrity?: string;
  link?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: Record<string, string>;
  bin?: Record<string, string>;
  license?: string;
}

/** What the local registry knows of one version: its bytes (a packed tarball, or the cache's by
 * integrity), and its lockfile entry. */
interface Known {
  integrity: string;
  file?: string;
  lock?: LockEntry;
}

/** A registry document for a version known only from the lockfile. */
function manifestFromLock(name: string, version: string, lock: LockEntry): Record<string, unknown> {
  const { os, cpu, libc, dependencies, optionalDependencies, peerDependencies, engines, bin, license } = lock;
  return Object.fromEntries(
    Object.entries({
      name,
      version,
      os,
      cpu,
      libc,
      dependencies,
      optionalDependencies,
      peerDependencies,
      engines,
      bin,
      license,
    }).filter(([, value]) => value !== undefined),
  );
}

/** A tarball's bytes from the npm cache at `cache`, by its integrity (cacache's layout). */
function fromCache(cache: string, integrity: string): Buffer | undefined {
  const hex = Buffer.from(integrity.replace(/^sha512-/, ""), "base64").toString("hex");
  const file = path.join(
    cache,
    "_cacache",
    "content-v2",
    "sha512",
    hex.slice(0, 2),
    hex.slice(2, 4),
    hex.slice(4),
  );
  return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
}

/**
 * A registry on 127.0.0.1 that serves the packed tarballs and every package the checkout's
 * lockfile pins, read from the machine's npm cache (where `npm ci` left them): installs need no
 * network, and get exactly the versions the repository is tested with. `url` ends in "/".
 */
export async function localRegistry(
  tarballs: Map<string, string>,
): Promise<{ url: string; close(): Promise<void> }> {
  /** name → version → where its bytes are, and (lockfile entries) what the lockfile says of it */
  const known = new Map<string, Map<string, Known>>();
  const add = (name: string, version: string, entry: Known) => {
    if (!known.has(name)) known.set(name, new Map());
    known.get(name)?.set(version, entry);
  };
  const lock = JSON.parse(fs.readFileSync(path.join(REPO, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    const at = key.lastIndexOf("node_modules/");
    if (at < 0 || entry.link || !entry.integrity || !entry.version) continue;
    add(entry.name ?? key.slice(at + "node_modules/".length), entry.version, {
      integrity: entry.integrity,
      lock: entry,
    });
  }
  for (const [name, file] of tarballs) {
    const bytes = fs.readFileSync(file);
    const version = manifestOf(bytes).version as string;
    add(name, version, { integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`, file });
  }
  // The cache `npm ci` filled: npm's own answer (turbo may not pass npm_config_cache through).
  const asked = await run("npm", ["config", "get", "cache", "--workspaces=false"], {
    cwd: REPO,
    env: userEnv(),
  });
  if (asked.code !== 0) throw new Error(`npm config get cache failed: ${asked.stderr}`);
  const cache = asked.stdout.trim();
  const bytesOf = (entry: { integrity: string; file?: string }) =>
    entry.file ? fs.readFileSync(entry.file) : fromCache(cache, entry.integrity);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const [name, version] = decodeURIComponent(url.pathname.slice(1)).split("/-/");
    const versions = known.get(name ?? "");
    if (versions && version !== undefined) {
      const entry = versions.get(version);
      const bytes = entry && bytesOf(entry);
      if (bytes) res.writeHead(200, { "content-type": "application/octet-stream" }).end(bytes);
      else res.writeHead(404).end();
      return;
    }
    if (!versions) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    const documents: Record<string, unknown> = {};
    for (const [v, entry] of versions) {
      const bytes = bytesOf(entry);
      // A package for another platform (an optional binary such as @libsql/darwin-arm64) is in
      // the lockfile but not in this machine's cache: listed from the lockfile, so a resolver
      // that reads every optional dependency's metadata (Deno) finds it, and never fetched.
      const manifest = bytes ? manifestOf(bytes) : entry.lock && manifestFromLock(name ?? "", v, entry.lock);
      if (!manifest) continue;
      documents[v] = {
        ...manifest,
        _id: `${name}@${v}`,
        dist: { tarball: `http://${req.headers.host}/${name}/-/${v}`, integrity: entry.integrity },
      };
    }
    const latest = Object.keys(documents)
      .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
      .at(-1);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ name, "dist-tags": latest ? { latest } : {}, versions: documents }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A prebuild-install folder holding this checkout's better-sqlite3 binary (built by `npm ci` for
 * the host Node), named as prebuild-install looks it up.
 */
export async function localPrebuilds(dir: string): Promise<string> {
  const pkg = path.join(REPO, "node_modules", "better-sqlite3");
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")) as {
    version: string;
  };
  const abi = (await run(HOST_NODE, ["-p", "process.versions.modules"])).stdout.trim();
  fs.mkdirSync(dir, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
  const r = await run("tar", ["-czf", path.join(dir, name), "-C", pkg, "build/Release/better_sqlite3.node"]);
  if (r.code !== 0) throw new Error(`tar failed: ${r.stderr}`);
  return dir;
}

/** Everything an npm install here needs: a cache of its own (npx's folders and the logs go away
 * with the test; the machine's cache is only read, by the registry), the local registry, the
 * prebuilds. */
export function npmSetup(root: string, registry: string, prebuilds: string) {
  const cache = path.join(root, "npm-cache");
  return {
    flags: [`--registry=${registry}`, `--cache=${cache}`, "--no-audit", "--no-fund", "--loglevel=error"],
    /** npm 11 runs a dependency's install script only when allowed: on the command line for a
     * global install or npx, in package.json ("allowScripts") for a project. */
    allowScripts: "--allow-scripts=better-sqlite3",
    env: userEnv({ npm_config_better_sqlite3_local_prebuilds: prebuilds }),
  };
}
