/**
 * The `sessiondb` executable (package.json "bin"). Its `#!/usr/bin/env node` line is what npm,
 * npx and a global install run; Deno ignores the line and runs it itself. `bunx sessiondb`
 * honours the line too, so it would run the CLI on Node although the user asked for Bun (and Bun
 * needs no native build, where Node 20 does): when bunx started this on Node, the CLI runs again
 * under that Bun — what `bunx --bun sessiondb` does.
 *
 * This file stays tiny and loads nothing else first, so the detour costs one Node start only, and
 * `--version` alone is answered here without loading the CLI.
 */
import module from "node:module";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

/** The Bun executable when bunx launched this file on Node (bunx sets these, like npm does). */
function launchingBun(): string | undefined {
  // Bun and Deno run the CLI directly; Deno would also need --allow-env to read the variables.
  if ("Bun" in globalThis || "Deno" in globalThis) return undefined;
  if (process.env.npm_lifecycle_event !== "bunx") return undefined;
  const exe = process.env.npm_execpath;
  // Bun from npm launches as bunx.exe, a second name of the same binary.
  return exe && /(^|[\\/])bunx?(\.exe)?$/.test(exe) ? exe : undefined;
}

/** The version in package.json, put in at build time (tsup.config.ts). */
declare const __SESSIONDB_CLI_VERSION__: string;

/**
 * Node ≥ 22.1 can keep the compiled code of the modules it loads on disk (in its own cache
 * directory, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off) and skip
 * compiling them on the next start: a CLI is a short-lived process that loads the same ~400 KB
 * of JavaScript every time. Elsewhere (older Node, Bun, Deno) there is nothing to enable.
 */
function enableCompileCache(): void {
  const enable = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (typeof enable !== "function" || "Bun" in globalThis || "Deno" in globalThis) return;
  try {
    enable();
  } catch {
    // A cache directory it cannot create costs the speed-up, nothing else.
  }
}

const args = process.argv.slice(2);
const bun = launchingBun();
if (!bun && args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  // The answer needs nothing else loaded (the CLI prints the same for the same words).
  process.stdout.write(`${__SESSIONDB_CLI_VERSION__}\n`);
} else if (bun) {
  // node:child_process only here: on Node 20 it brings 17 internal modules of its own (net,
  // dgram, the stream wrappers) into every command's start, ~3 ms of CPU in a bare script; the
  // commands that spawn (the pager, serve) load it themselves.
  const { spawn } = await import("node:child_process");
  const cli = fileURLToPath(new URL("./cli.js", import.meta.url));
  // argv0 "bun": the binary reads its name to decide whether it is `bun` or `bunx`.
  const child = spawn(bun, [cli, ...process.argv.slice(2)], { stdio: "inherit", argv0: "bun" });
  // Ctrl-C reaches both processes (one process group); the CLI under Bun decides what it means.
  process.on("SIGINT", () => {});
  for (const signal of ["SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => {
    process.stderr.write(
      `sessiondb: bunx started the CLI on Node, and Bun (${bun}) could not be run: ${error.message}; run "bunx --bun sessiondb" [BUN_UNAVAILABLE]\n`,
    );
    process.exit(1);
  });
  child.on("exit", (code, signal) => process.exit(signal ? 128 + constants.signals[signal] : (code ?? 1)));
} else {
  enableCompileCache();
  // A literal specifier: part of the module graph, so Deno loads it without --allow-read.
  await import("./cli.js");
}
