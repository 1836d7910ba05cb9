/**
 * How a long command stops when asked to: Ctrl-C (SIGINT), `kill` or a service manager
 * (SIGTERM), or a closed terminal or SSH session (SIGHUP). All three mean the same: stop at the
 * next safe point, remove any temporary file (an export's `.NAME.<random>.tmp`, a backup's
 * `DEST.tmp-…` and its journal hold transcripts), and exit with the shell's code for that signal,
 * 128 + its number (130, 143, 129), so a script can tell a stopped run from a failed one.
 *
 * Without a listener the runtime's default for SIGTERM and SIGHUP is to die on the spot, which
 * leaves those files behind; only SIGKILL (or a power cut) still can. The listeners stay until
 * the process ends: a signal after the work is done (its file published) changes nothing, where
 * the default would kill the finished command with 128 + n and tell a script it was interrupted.
 * Only the runtime's own teardown, after the last JavaScript has run, puts the default back (it
 * closes its signal handles): a signal in those last milliseconds still ends the process so.
 */
import { ExitError } from "./exit.js";

const NUMBER = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
type StopSignal = keyof typeof NUMBER;
const STOP_SIGNALS = Object.keys(NUMBER) as StopSignal[];

export class Interrupt {
  readonly #controller = new AbortController();
  #received: StopSignal | undefined;

  /** Listen from now on; `onRepeat` runs on every signal after the first (default: nothing). */
  constructor(onRepeat?: () => void) {
    for (const name of STOP_SIGNALS) {
      const listener = () => {
        if (this.#received) {
          onRepeat?.();
          return;
        }
        this.#received = name;
        this.#controller.abort();
      };
      try {
        process.on(name, listener);
      } catch {
        // A platform that cannot listen for this signal (Deno on Windows has no SIGTERM or
        // SIGHUP) cannot receive it either.
      }
    }
  }

  /** Aborted by the first signal: hand it to the library's long operations. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#received !== undefined;
  }

  /** The signal that arrived first ("SIGTERM"), for the message; undefined before one did. */
  get received(): StopSignal | undefined {
    return this.#received;
  }

  /** 128 + the number of the signal received (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP). */
  get exitCode(): number {
    return 128 + NUMBER[this.#received ?? "SIGINT"];
  }

  /** The error that ends the command: exit `exitCode`, code INTERRUPTED. */
  error(message: string): ExitError {
    return new ExitError(this.exitCode, message, "INTERRUPTED");
  }
}
