/**
 * Long human output on a terminal goes through a pager, as git and gh do: $SESSIONDB_PAGER, else
 * $PAGER, else `less` with LESS=FRX when LESS is unset (quit if one screen, keep colours, leave the
 * text on screen). Output that fits the screen is written directly, without starting one. Never
 * when stdout is not a terminal, with --no-pager, or when the pager is "" or "cat"; a pager that
 * cannot be started (not installed, no permission to run programs) falls back to stdout.
 */
import { spawn } from "node:child_process";
import type { OptionDefs } from "./define.js";
import { writeOut } from "./output.js";
import { envIfAllowed } from "./permissions.js";

/** The option every paging command takes. */
export const PAGER_OPTION = {
  "no-pager": { type: "boolean", help: "print directly, even on a terminal" },
} as const satisfies OptionDefs;

function pagerCommand(): string | undefined {
  const chosen = envIfAllowed("SESSIONDB_PAGER") ?? envIfAllowed("PAGER") ?? "less";
  return chosen.trim() === "" || chosen.trim() === "cat" ? undefined : chosen;
}

/** Write `text` (ending in a newline) to stdout, through the pager when it is long and stdout is
 * a terminal. Resolves once the pager has quit. */
export async function page(text: string, values: Readonly<Record<string, unknown>>): Promise<void> {
  const command = values["no-pager"] === true ? undefined : pagerCommand();
  const rows = process.stdout.rows ?? 0;
  const lines = text.split("\n").length - 1;
  if (!command || !process.stdout.isTTY || (rows > 0 && lines < rows)) {
    writeOut(text);
    return;
  }
  const started = await new Promise<ReturnType<typeof spawn> | undefined>((resolve) => {
    try {
      const child = spawn(command, {
        shell: true,
        stdio: ["pipe", "inherit", "inherit"],
        env: { ...process.env, LESS: process.env.LESS ?? "FRX" },
      });
      child.once("spawn", () => resolve(child));
      child.once("error", () => resolve(undefined));
    } catch {
      // Deno without --allow-run refuses synchronously.
      resolve(undefined);
    }
  });
  if (!started) {
    writeOut(text);
    return;
  }
  // Ctrl-C belongs to the pager (less uses it to stop a search); the CLI waits for it to quit.
  const ignore = () => {};
  process.on("SIGINT", ignore);
  let code: number | null;
  try {
    code = await new Promise<number | null>((resolve) => {
      started.once("close", (exit: number | null) => resolve(exit));
      // A pager that quits before reading everything (q in less) closes the pipe: not an error.
      started.stdin?.on("error", () => {});
      started.stdin?.end(text);
    });
  } finally {
    process.off("SIGINT", ignore);
  }
  // The shell starts even when the pager does not: it exits 127 (not found) or 126 (not
  // executable), having shown nothing of the text but its own complaint.
  if (code === 127 || code === 126) writeOut(text);
}
