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

/** "90d", "12h", "2w", "30m" → seconds. */
export function parseAge(text: string, name: string): number {
  const match = /^(\d+)([mhdw])$/.exec(text);
  if (!match || Number(match[1]) === 0)
    throw new UsageError(
      `${name} expects an age such as 90d, 12h, 2w or 30m (minutes), got ${JSON.stringify(text)}`,
    );
  return Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
}

/** --since/--until as an epoch-second range [since, until). */
export function timeRange(values: Record<string, unknown>): { since?: number; until?: number } {
  return {
    ...(values.since !== undefined ? { since: parseTime(String(values.since), "--since") } : {}),
    ...(values.until !== undefined ? { until: parseTime(String(values.until), "--until") } : {}),
  };
}
