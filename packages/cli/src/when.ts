/** Times and ages given on the command line. */
import { UsageError } from "./exit.js";

/** "2025-01-31" or "2025-01-31T12:00:00Z" or epoch seconds → epoch seconds. */
export function parseTime(text: string, name: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new UsageError(
      `${name} expects a date (2025-01-31, an ISO time) or epoch seconds, got ${JSON.stringify(text)}`,
    );
  return ms / 1000;
}

const UNIT_SECONDS: Record<string, number> = { m: 60, h: 3600, d: 86_400, w: 7 * 86_400 };

/** The longest age accepted: 100 years, more than any agent session is old. A much longer age
 * (99999999d) puts the cutoff before the earliest date JavaScript can show, so there is a limit,
 * and a usage error that names it is clearer than ages that work up to an odd number. */
export const MAX_AGE_DAYS = 36_500;

/** "90d", "12h", "2w", "30m" → seconds; at most MAX_AGE_DAYS. */
export function parseAge(text: string, name: string): number {
  const match = /^(\d+)([mhdw])$/.exec(text);
  if (!match || Number(match[1]) === 0)
    throw new UsageError(
      `${name} expects an age such as 90d, 12h, 2w or 30m (minutes), got ${JSON.stringify(text)}`,
    );
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
  if (seconds > MAX_AGE_DAYS * 86_400)
    throw new UsageError(`${name} is at most ${MAX_AGE_DAYS}d (100 years), got ${JSON.stringify(text)}`);
  return seconds;
}
