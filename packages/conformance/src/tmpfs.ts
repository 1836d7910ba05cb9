/**
 * Real small file systems for the conformance suite: a tmpfs of a chosen size, mounted for one
 * test, that fills up for real (a full disk) or is remounted read-only. Mounting takes root and
 * the `mount` command, run through node:child_process, which Node, Bun and Deno all provide
 * (Deno with --allow-run and --allow-env=NODE_V8_COVERAGE: its spawn reads that variable). Where
 * any of that is missing, the tests that need a mount are skipped with the reason printed.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where `mount` lives on Linux; the child gets no other environment (Deno would need a
 * permission to copy ours). */
const SEARCH_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

/** A mounted tmpfs. */
export interface Tmpfs {
  /** The mount point (mode 0700). */
  readonly dir: string;
  /** Remount read-only or read-write in place; files and open connections stay. */
  remount(mode: "ro" | "rw"): void;
}

/** Run a command; the failure in words, or undefined when it exited 0. */
function run(command: string, args: string[]): string | undefined {
  try {
    const result = spawnSync(command, args, { encoding: "utf8", env: { PATH: SEARCH_PATH } });
    if (result.error) return `${command}: ${result.error.message}`;
    if (result.status !== 0)
      return `${command} ${args.join(" ")} exited ${result.status}: ${result.stderr.trim()}`;
    return undefined;
  } catch (error) {
    // Deno throws NotCapable when a permission is missing.
    return `${command}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function mount(dir: string, sizeBytes: number): string | undefined {
  return run("mount", ["-t", "tmpfs", "-o", `size=${sizeBytes},mode=0700`, "sessiondb-test", dir]);
}

function unmount(dir: string): void {
  // Lazy as a fallback: a test that failed with a connection still open must not leave a mount.
  if (run("umount", [dir]) !== undefined) run("umount", ["-l", dir]);
}

let unavailable: string | undefined | null = null;

/** Why no tmpfs can be mounted here (not root, no `mount`, no permission to run it), or
 * undefined when one can. Probed once per process by mounting a tiny one. */
export function tmpfsUnavailable(): string | undefined {
  if (unavailable !== null) return unavailable;
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-tmpfs-probe-"));
  try {
    unavailable = mount(dir, 64 * 1024);
    if (unavailable === undefined) unmount(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return unavailable;
}

/** Run `body` with a fresh tmpfs of `sizeBytes` mounted; unmounted and removed afterwards. */
export async function withTmpfs(sizeBytes: number, body: (fs: Tmpfs) => void | Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-tmpfs-"));
  try {
    const failure = mount(dir, sizeBytes);
    if (failure) throw new Error(`cannot mount a tmpfs on ${dir}: ${failure}`);
    try {
      await body({
        dir,
        remount(mode) {
          const failed = run("mount", ["-o", `remount,${mode}`, dir]);
          if (failed) throw new Error(`cannot remount ${dir} ${mode}: ${failed}`);
        },
      });
    } finally {
      unmount(dir);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
