/**
 * Where each target's runtime lives on this machine, for the orchestrator (which may itself run
 * on any Node). Overrides: BENCH_NODE (the better-sqlite3 Node, default: the first `node` on PATH
 * outside node_modules — npm scripts put the pinned Node 24 first), BENCH_NODE24, BENCH_BUN,
 * BENCH_DENO.
 */
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { TargetId } from "./engine.js";

/** The monorepo's node_modules/.bin, found by walking up from this file. */
function binDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "node_modules", ".bin");
    if (
      existsSync(join(candidate, "bun")) ||
      existsSync(join(candidate, "deno")) ||
      existsSync(join(candidate, "node"))
    ) {
      if (!dir.endsWith("bench")) return candidate;
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function systemNode(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir || dir.includes("node_modules")) continue;
    const file = join(dir, "node");
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** argv prefix that starts the target's runtime, or the reason it cannot. */
export function execFor(target: TargetId): { exec: string[] } | { reason: string } {
  const bin = binDir();
  const local = (name: string) => (bin && existsSync(join(bin, name)) ? join(bin, name) : undefined);
  const pick = (env: string, found: string | undefined, what: string) => {
    const file = process.env[env] ?? found;
    return file ? { exec: [file] } : { reason: `${what} not found (set ${env})` };
  };
  switch (target) {
    case "node-better-sqlite3":
    case "node-libsql-server":
      return pick("BENCH_NODE", systemNode(), "a system Node outside node_modules");
    case "node-sqlite":
      return pick("BENCH_NODE24", local("node"), "node_modules/.bin/node (Node 24)");
    case "bun-sqlite":
      return pick("BENCH_BUN", local("bun"), "node_modules/.bin/bun");
    case "deno-node-sqlite": {
      const deno = process.env.BENCH_DENO ?? local("deno");
      return deno
        ? { exec: [deno, "run", "-A", "--quiet"] }
        : { reason: "node_modules/.bin/deno not found (set BENCH_DENO)" };
    }
  }
}
