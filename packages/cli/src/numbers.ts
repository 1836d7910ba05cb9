/**
 * Numbers given on the command line (`--limit 20`, `--min-cost 0.05`, `--wait 500`): one parser,
 * so every numeric option refuses the same things in the same words.
 */
import { UsageError } from "./exit.js";

export interface NumberSpec {
  /** The smallest value accepted (default 0: no option takes a negative number). */
  min?: number;
  /** The largest (default: the largest exact integer). */
  max?: number;
  /** Whole numbers only (default true); false accepts a decimal fraction (0.05). */
  integer?: boolean;
}

/** `text` as a number within `spec`, or a usage error naming `name`. */
export function parseNumber(text: string, name: string, spec: NumberSpec = {}): number {
  const { min = 0, max = Number.MAX_SAFE_INTEGER, integer = true } = spec;
  // Digits only: Number() would also take " 5", "1e3", "0x10" and "Infinity".
  const shape = integer ? /^\d+$/ : /^(\d+(\.\d*)?|\.\d+)$/;
  if (!shape.test(text))
    throw new UsageError(
      `${name} expects a non-negative ${integer ? "integer" : "number"}, got ${JSON.stringify(text)}`,
    );
  const n = Number(text);
  // Beyond the largest exact integer a number is no longer exact (99999999999999999999 reads as
  // 100000000000000000000): it is refused with the largest that is.
  const most = integer ? Math.min(max, Number.MAX_SAFE_INTEGER) : max;
  if (n > most || (integer && !Number.isSafeInteger(n)))
    throw new UsageError(`${name} is at most ${most}, got ${text}`);
  if (n < min) throw new UsageError(`${name} is at least ${min}, got ${text}`);
  return n;
}

/** An option's `parse` (define.ts) for a whole number within `spec`. */
export function integer(spec: Omit<NumberSpec, "integer"> = {}): (text: string, name: string) => number {
  return (text, name) => parseNumber(text, name, spec);
}

/** An option's `parse` for a number that may have a fraction. */
export function decimal(spec: Omit<NumberSpec, "integer"> = {}): (text: string, name: string) => number {
  return (text, name) => parseNumber(text, name, { ...spec, integer: false });
}
