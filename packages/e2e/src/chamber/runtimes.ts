/**
 * The runtimes a role can run on. Node 20 runs better-sqlite3 (the host Node that runs npm: in
 * npm scripts `node` on PATH is the pinned Node 24, where the Node-20 build of better-sqlite3
 * does not load, so the root `npm test` passes the host Node in SESSIONDB_HOST_NODE); Node 24
 * runs node:sqlite; Bun runs bun:sqlite; Deno runs its node:sqlite.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { MODULES, REPO_ROOT, ROLE_MAIN } from "./paths.js";

export type RuntimeId = "node20" | "node24" | "bun" | "deno";

export interface Runtime {
  id: RuntimeId;
  /** Executable and arguments that run ROLE_MAIN. */
  command: string;
  args: string[];
  /** The @sessiondb/node driver to ask for (Node only). */
  driver?: string;
  /** Why it cannot be used here, when it cannot. */
  unavailable?: string;
}

function majorOf(bin: string): number | undefined {
  const out = spawnSync(bin, ["--version"], { encoding: "utf8" });
  const m = /^v(\d+)\./.exec(out.stdout ?? "");
  return m ? Number(m[1]) : undefined;
}

/** The host Node 20: SESSIONDB_HOST_NODE, this process if it is Node 20, else the first on PATH. */
function findNode20(): string | undefined {
  const env = process.env.SESSIONDB_HOST_NODE;
  if (env && majorOf(env) === 20) return env;
  if (process.versions.node.startsWith("20.")) return process.execPath;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir || dir.includes("node_modules")) continue;
    const bin = join(dir, "node");
    if (existsSync(bin) && majorOf(bin) === 20) return bin;
  }
  return undefined;
}

const adapterBuilt = (pkg: string) => existsSync(join(MODULES, "@sessiondb", pkg, "dist", "index.js"));

function detect(): Record<RuntimeId, Runtime> {
  const bin = (name: string) => join(REPO_ROOT, "node_modules", ".bin", name);
  const node20 = findNode20();
  const runtimes: Record<RuntimeId, Runtime> = {
    node20: { id: "node20", command: node20 ?? "node", args: [ROLE_MAIN], driver: "better-sqlite3" },
    node24: { id: "node24", command: bin("node"), args: [ROLE_MAIN], driver: "node:sqlite" },
    bun: { id: "bun", command: bin("bun"), args: [ROLE_MAIN] },
    deno: { id: "deno", command: bin("deno"), args: ["run", "-A", "--quiet", ROLE_MAIN] },
  };
  if (!node20) runtimes.node20.unavailable = "no Node 20 found (set SESSIONDB_HOST_NODE)";
  if (majorOf(runtimes.node24.command) !== 24)
    runtimes.node24.unavailable = "node_modules/.bin/node is not Node 24";
  if (!adapterBuilt("node")) {
    runtimes.node20.unavailable ??= "@sessiondb/node is not built (npm run build)";
    runtimes.node24.unavailable ??= "@sessiondb/node is not built (npm run build)";
  }
  if (!existsSync(runtimes.bun.command)) runtimes.bun.unavailable = "no bun binary in node_modules/.bin";
  else if (!adapterBuilt("bun")) runtimes.bun.unavailable = "@sessiondb/bun is not built";
  if (!existsSync(runtimes.deno.command)) runtimes.deno.unavailable = "no deno binary in node_modules/.bin";
  else if (!adapterBuilt("deno")) runtimes.deno.unavailable = "@sessiondb/deno is not built";
  // SESSIONDB_CHAMBER_RUNTIMES=node20,bun restricts the chamber to some runtimes.
  const only = process.env.SESSIONDB_CHAMBER_RUNTIMES?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (only)
    for (const r of Object.values(runtimes))
      if (!only.includes(r.id)) r.unavailable ??= "excluded by SESSIONDB_CHAMBER_RUNTIMES";
  return runtimes;
}

export const RUNTIMES = detect();

/** Runtimes usable in this run, in a fixed order. */
export function availableRuntimes(): Runtime[] {
  return (["node20", "node24", "bun", "deno"] as const)
    .map((id) => RUNTIMES[id])
    .filter((r) => !r.unavailable);
}
