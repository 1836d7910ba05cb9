/**
 * The CLI's one path to stdout and stderr. Every command prints through `writeOut` (directly or
 * through format.ts's `print`/`printJson`), so what happens when the reader goes away is decided
 * here, once, for Node, Bun and Deno alike.
 *
 * A reader that stops early (`sessiondb search … | head -1`) closes the pipe, and the next write
 * fails with EPIPE. That is the reader's choice, not a failure: the command stops at once, prints
 * nothing more, and exits 0 — what the reader took was complete and correct, and a script under
 * `set -o pipefail` is not failed by it. (A command killed by SIGPIPE would exit 141; Node, Bun
 * and Deno ignore SIGPIPE and report EPIPE instead, which is what lets the CLI choose.)
 */

/** Exit status when stdout's reader went away (README, "Output"). */
export const READER_GONE_EXIT = 0;

let guarded = false;

/** EPIPE (the reader closed the pipe) as Node, Bun and Deno report it. */
function isClosedPipe(error: unknown): boolean {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return code === "EPIPE" || name === "BrokenPipe";
}

/**
 * Install the handlers (once, before the first write): a closed stdout ends the process quietly;
 * any other stdout failure (a full disk behind `> file`) is one line on stderr and exit 1; a
 * closed stderr is ignored, as there is nowhere left to report anything.
 *
 * The error arrives as a stream event on every runtime (the write itself does not throw), after
 * the synchronous work in progress; writes in between go nowhere, since the stream is destroyed.
 */
export function guardOutput(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on("error", (error: Error & { code?: unknown }) => {
    if (isClosedPipe(error)) process.exit(READER_GONE_EXIT);
    writeErr(
      `sessiondb: cannot write the output: ${error.message} [${String(error.code ?? "OUTPUT_FAILED")}]\n`,
    );
    process.exit(1);
  });
  process.stderr.on("error", () => {
    // Nothing to do: stderr is where failures would be reported.
  });
}

/** Write text to stdout as is (add the newline yourself). */
export function writeOut(text: string): void {
  if (!process.stdout.destroyed) process.stdout.write(text);
}

/** Write text to stderr as is (progress, warnings, the error line). */
export function writeErr(text: string): void {
  if (!process.stderr.destroyed) process.stderr.write(text);
}

/**
 * Write to stdout and resolve once the stream accepted it, so a long stream (an export) waits
 * for a slow reader instead of buffering the whole store. Rejects when the reader went away.
 */
export function writeOutDrained(text: string): Promise<void> {
  const stream = process.stdout;
  return new Promise((resolve, reject) => {
    if (stream.destroyed) {
      reject(Object.assign(new Error("stdout is closed"), { code: "EPIPE" }));
      return;
    }
    const onError = (error: Error) => {
      stream.off("drain", onDrain);
      reject(error);
    };
    const onDrain = () => {
      stream.off("error", onError);
      resolve();
    };
    stream.once("error", onError);
    if (stream.write(text)) onDrain();
    else stream.once("drain", onDrain);
  });
}

/** Resolve when what was written to stdout has been handed to the system (before exiting). */
export function flushOut(): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.destroyed) resolve();
    else process.stdout.write("", () => resolve());
  });
}
