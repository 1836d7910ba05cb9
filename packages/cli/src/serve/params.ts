/** Reading query parameters: a malformed one is a BadRequest (a 400 page that says which). */

/** A request the server refuses, with a message safe to show (it names only the parameter). */
export class BadRequest extends Error {
  override name = "BadRequest";
}

/** A 1-based page number; missing means 1. */
export function pageNumber(text: string | undefined): number {
  if (text === undefined || text === "") return 1;
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw new BadRequest("page must be a positive number");
  return Number(text);
}

/** A non-negative integer (message ids); missing means undefined. */
export function optionalId(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === "") return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new BadRequest(`${name} must be a message id`);
  return Number(text);
}

/** "YYYY-MM-DD" → epoch seconds at the start of that UTC day (plus `days`); missing means undefined. */
export function day(text: string | undefined, name: string, days = 0): number | undefined {
  if (text === undefined || text === "") return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms)) throw new BadRequest(`${name} must be a date like 2025-01-31`);
  return ms / 1000 + days * 86_400;
}

/** One of `allowed`, or the default when missing. */
export function oneOf<T extends string>(
  text: string | undefined,
  allowed: readonly T[],
  fallback: T,
  name: string,
): T {
  if (text === undefined || text === "") return fallback;
  if (!allowed.includes(text as T)) throw new BadRequest(`${name} must be one of ${allowed.join(", ")}`);
  return text as T;
}

/** A free-text filter value, trimmed and capped; empty means undefined. */
export function text(value: string | undefined, max = 200): string | undefined {
  const t = value?.trim();
  return t ? t.slice(0, max) : undefined;
}

/** A request's query parameters. */
export interface Params {
  one(name: string): string | undefined;
  many(name: string): string[];
}
