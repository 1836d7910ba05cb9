/**
 * The public packages as a user gets them: packed with `npm pack`, served to npm by a local
 * registry for the @sessiondb scope (they are not published, and the CLI's tarball names them as
 * ordinary dependencies), everything else from the machine's npm cache (the registry only for
 * what the cache lacks). Installs then have exactly the layout of `npm i -g sessiondb`.
 *
 * better-sqlite3 gets a prebuilt binary the way users get one from prebuild-install, except that
 * it comes from a local folder (its documented `local-prebuilds` option) holding the binary this
 * checkout already built for the host Node, instead of a download: no network, no minute-long
 * compile per install.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const PUBLIC = ["core", "runtime-node", "runtime-bun", "runtime-deno", "cli"];

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

/** A registry for the @sessiondb scope serving the packed tarballs; `url` ends in "/". */
export async function scopeRegistry(
  tarballs: Map<string, string>,
): Promise<{ url: string; close(): Promise<void> }> {
  const manifests = new Map<string, Record<string, unknown>>();
  for (const p of PUBLIC) {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO, "packages", p, "package.json"), "utf8"));
    manifests.set(manifest.name, manifest);
  }
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const name = decodeURIComponent(url.pathname.slice(1));
    const file = name.startsWith("-/")
      ? [...tarballs.values()].find((t) => name === `-/${path.basename(t)}`)
      : undefined;
    if (file) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(fs.readFileSync(file));
      return;
    }
    const manifest = manifests.get(name);
    const tarball = tarballs.get(name);
    if (!manifest || !tarball) {
      res.writeHead(404).end("{}");
      return;
    }
    const bytes = fs.readFileSync(tarball);
    const version = manifest.version as string;
    const base = `http://${req.headers.host}/`;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        name,
        "dist-tags": { latest: version },
        versions: {
          [version]: {
            ...manifest,
            _id: `${name}@${version}`,
            dist: {
              tarball: `${base}-/${path.basename(tarball)}`,
              integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
              shasum: createHash("sha1").update(bytes).digest("hex"),
            },
          },
        },
      }),
    );
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

/** Everything an npm install here needs: a cache of its own over the machine's cached packages
 * (so npx's folders and logs go away with the test), the scope registry, the prebuilds. */
export function npmSetup(root: string, registry: string, prebuilds: string) {
  const machineCache = process.env.npm_config_cache || path.join(os.homedir(), ".npm");
  const cache = path.join(root, "npm-cache");
  fs.mkdirSync(cache, { recursive: true });
  fs.mkdirSync(path.join(machineCache, "_cacache"), { recursive: true });
  fs.symlinkSync(path.join(machineCache, "_cacache"), path.join(cache, "_cacache"));
  return {
    flags: [
      "--prefer-offline",
      `--cache=${cache}`,
      `--@sessiondb:registry=${registry}`,
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    /** npm 11 runs a dependency's install script only when allowed: on the command line for a
     * global install or npx, in package.json ("allowScripts") for a project. */
    allowScripts: "--allow-scripts=better-sqlite3",
    env: userEnv({ npm_config_better_sqlite3_local_prebuilds: prebuilds }),
  };
}
