/**
 * A progress display for long jobs, on stderr so stdout stays clean for --json and pipes.
 * On a terminal: one bar redrawn in place (rows, %, rate, ETA), at most ~10 times a second.
 * Elsewhere (a pipe, a log file, CI): plain lines, the first at once, then at most one every
 * `lineEveryMs`, and the last one always.
 */
import { count } from "./format.js";

export interface ProgressOptions {
  /** What is being counted, e.g. "rows". */
  unit: string;
  /** Label before the bar, e.g. "fts backfill". */
  label: string;
  stream?: { isTTY?: boolean; columns?: number; write(text: string): unknown };
  /** Plain-line mode: minimum interval between lines (default 1000 ms). */
  lineEveryMs?: number;
  now?: () => number;
}

const BAR_WIDTH = 24;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "--";
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m${String(Math.round(seconds % 60)).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

export class Progress {
  readonly #unit: string;
  readonly #label: string;
  readonly #stream: NonNullable<ProgressOptions["stream"]>;
  readonly #tty: boolean;
  readonly #lineEveryMs: number;
  readonly #now: () => number;
  readonly #started: number;
  #startDone: number | undefined;
  #lastDraw = -Infinity;
  #drawn = false;
  #last: { done: number; total: number } = { done: 0, total: 0 };

  constructor(options: ProgressOptions) {
    this.#unit = options.unit;
    this.#label = options.label;
    this.#stream = options.stream ?? process.stderr;
    this.#tty = this.#stream.isTTY === true;
    this.#lineEveryMs = options.lineEveryMs ?? 1000;
    this.#now = options.now ?? (() => performance.now());
    this.#started = this.#now();
  }

  /** Report `done` of `total`; draws when due. */
  update(done: number, total: number, force = false): void {
    this.#startDone ??= done;
    this.#last = { done, total };
    // Plain lines: the line for the end is `finish`'s, printed once (with the time taken).
    if (!this.#tty && total > 0 && done >= total && !force) return;
    const at = this.#now();
    const due = at - this.#lastDraw >= (this.#tty ? 100 : this.#lineEveryMs);
    if (!force && this.#drawn && !due) return;
    this.#lastDraw = at;
    this.#drawn = true;
    this.#stream.write(this.#tty ? `\r\x1b[2K${this.#line(at, true)}` : `${this.#line(at, false)}\n`);
  }

  /** Final line, then a newline on a terminal. */
  finish(note?: string): void {
    const at = this.#now();
    const line = this.#line(at, this.#tty) + (note ? ` — ${note}` : "");
    this.#stream.write(this.#tty ? `\r\x1b[2K${line}\n` : `${line}\n`);
  }

  #line(at: number, bar: boolean): string {
    const { done, total } = this.#last;
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const elapsed = (at - this.#started) / 1000;
    // Measured from the first report: work done before it (a resumed job's) is not this run's.
    // A job whose first report is already its end (one step) has no rate to show.
    const counted = done - (this.#startDone ?? 0);
    const rate = elapsed > 0 ? counted / elapsed : 0;
    const eta = rate > 0 ? (total - done) / rate : Number.NaN;
    const filled = Math.round(fraction * BAR_WIDTH);
    const parts = [
      this.#label,
      ...(bar ? [`[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`] : []),
      `${(fraction * 100).toFixed(1).padStart(5)}%`,
      `${count(done)}/${count(total)} ${this.#unit}`,
      ...(counted > 0 || done < total ? [`${count(Math.round(rate))} ${this.#unit}/s`] : []),
      done >= total ? `${duration(elapsed)} elapsed` : `ETA ${duration(eta)}`,
    ];
    return parts.join("  ");
  }
}
