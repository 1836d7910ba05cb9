/**
 * Input validation: every public write checks its input here before touching the store, so a
 * rejected call changes nothing. Lone UTF-16 surrogates are replaced (U+FFFD), not rejected:
 * they come from truncated model output, and losing the message would be worse.
 */
import {
  MAX_CONTENT_CHARS,
  MAX_COST_USD,
  MAX_EPOCH_SECONDS,
  MAX_JSON_LEVELS,
  MAX_PATH_CHARS,
  MAX_SESSION_ID_CHARS,
  MAX_WAIT_MS,
} from "../constants.js";
import { InvalidInputError } from "../errors.js";
import { type Json, ROLES, type Role, type StructuredContent } from "./types.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replace lone surrogates with U+FFFD by a regular expression (engines without ES2024's
 * `isWellFormed`). */
export function replaceLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

/** ES2024's well-formedness methods (Node ≥ 20, Bun, Deno); the type library here is ES2023. */
interface WellFormedText {
  isWellFormed(): boolean;
  toWellFormed(): string;
}
const nativeWellFormed = typeof (String.prototype as Partial<WellFormedText>).isWellFormed === "function";

/** Replace lone surrogates with U+FFFD. Every message's text passes here, so the engine's own
 * check is used where it exists: the regular expression took 2–3 µs for a 2 KB message, the
 * native check a tenth of that. */
export function wellFormed(text: string): string {
  if (!nativeWellFormed) return replaceLoneSurrogates(text);
  const native = text as unknown as WellFormedText;
  return native.isWellFormed() ? text : native.toWellFormed();
}

function describe(value: unknown): string {
  if (value === null) return "null";
  // Never call the caller's code here (a function's own toString can throw); a revoked proxy
  // throws even from Array.isArray.
  if (typeof value === "function") return "a function";
  if (typeof value !== "object") return `${typeof value} ${String(value).slice(0, 40)}`;
  try {
    return Array.isArray(value) ? "an array" : "an object";
  } catch {
    return "a revoked proxy";
  }
}

/** A list of session ids (an array, possibly empty), each checked as `sessionId`; a repeated id
 * is kept once, where it first appears. */
export function sessionIds(value: unknown, field: string): string[] {
  if (!guarded(field, () => Array.isArray(value))) {
    throw new InvalidInputError(field, `expected an array of session ids, got ${describe(value)}`);
  }
  const items = guarded(field, () => Array.from(value as unknown[]));
  return [...new Set(items.map((item, i) => sessionId(item, `${field}[${i}]`)))];
}

/** A session id: a non-empty string of at most MAX_SESSION_ID_CHARS, no control characters. */
export function sessionId(value: unknown, field = "sessionId"): string {
  if (typeof value !== "string")
    throw new InvalidInputError(field, `expected a string, got ${describe(value)}`);
  if (value.length === 0) throw new InvalidInputError(field, "must not be empty");
  if (value.length > MAX_SESSION_ID_CHARS) {
    throw new InvalidInputError(
      field,
      `${value.length} characters is longer than the ${MAX_SESSION_ID_CHARS} allowed`,
    );
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(value))
    throw new InvalidInputError(field, "must not contain control characters");
  if (wellFormed(value) !== value) throw new InvalidInputError(field, "must not contain lone surrogates");
  return value;
}

/** An optional string (undefined → null), well-formed, at most `max` characters. */
export function optionalText(value: unknown, field: string, max = 100_000): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string")
    throw new InvalidInputError(field, `expected a string, got ${describe(value)}`);
  if (value.length > max)
    throw new InvalidInputError(field, `${value.length} characters is longer than the ${max} allowed`);
  return wellFormed(value);
}

/** A required non-empty string. */
export function requiredText(value: unknown, field: string, max = 1000): string {
  const text = optionalText(value, field, max);
  if (text === null || text.length === 0)
    throw new InvalidInputError(field, "is required and must be a non-empty string");
  return text;
}

/** Epoch seconds within MAX_EPOCH_SECONDS of 1970; a finite number past that is refused with a
 * hint, since it is almost always milliseconds. */
function epochSeconds(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new InvalidInputError(field, `expected a finite number of epoch seconds, got ${describe(value)}`);
  }
  if (Math.abs(value) > MAX_EPOCH_SECONDS) {
    const hint = Math.abs(value) <= MAX_EPOCH_SECONDS * 1000 ? " (milliseconds? divide by 1000)" : "";
    throw new InvalidInputError(
      field,
      `${value} is more than ${MAX_EPOCH_SECONDS} epoch seconds from 1970${hint}`,
    );
  }
  return value + 0;
}

/** Epoch seconds (see epochSeconds), or `fallback` when undefined. */
export function timestamp(value: unknown, field: string, fallback: number): number {
  return value === undefined ? fallback : epochSeconds(value, field);
}

/** A non-negative integer (token counts), or null/`fallback` when undefined. */
export function count(value: unknown, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(field, `expected a non-negative integer, got ${describe(value)}`);
  }
  return value;
}

/** A non-negative amount of US dollars up to MAX_COST_USD (cost); 0 when absent. */
export function amount(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== "number" || !(value >= 0 && value <= MAX_COST_USD)) {
    throw new InvalidInputError(field, `expected dollars from 0 to ${MAX_COST_USD}, got ${describe(value)}`);
  }
  return value + 0;
}

/** A boolean. */
export function flag(value: unknown, field: string): boolean {
  if (typeof value !== "boolean")
    throw new InvalidInputError(field, `expected true or false, got ${describe(value)}`);
  return value;
}

/** A message role. */
export function role(value: unknown, field = "message.role"): Role {
  if (typeof value !== "string" || !ROLES.includes(value as Role)) {
    throw new InvalidInputError(field, `expected one of ${ROLES.join(", ")}, got ${describe(value)}`);
  }
  return value as Role;
}

// ── options: the optional bags every method and openStore take ─────────────────────────────

/** Run `read` (a property read of the caller's object); a getter or proxy trap that throws is
 * the caller's bad input at `field`, not a foreign error escaping the store. */
function guarded<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw getterThrew(field, error);
  }
}

function getterThrew(field: string, error: unknown): InvalidInputError {
  let reason = "";
  try {
    reason = ` (${(error instanceof Error ? error.message : String(error)).slice(0, 200)})`;
  } catch {
    // an error whose message cannot be read either
  }
  return new InvalidInputError(field, `could not be read, its getter threw${reason}`);
}

/** Read each of `keys` of `value` exactly once (a getter cannot pass validation with one value
 * and run with another), naming a failed read `fieldOf(key)`. */
function readOnce<K extends string>(
  value: object,
  keys: readonly K[],
  fieldOf: (key: K) => string,
  keepNull: boolean,
): { [P in K]?: unknown } {
  const out: { [P in K]?: unknown } = {};
  for (const key of keys) {
    // Inline rather than through `guarded`: options are read on every call, and the field's
    // name is only needed when a getter throws.
    let item: unknown;
    try {
      item = (value as Record<K, unknown>)[key];
    } catch (error) {
      throw getterThrew(fieldOf(key), error);
    }
    if (item !== undefined && (keepNull || item !== null)) out[key] = item;
  }
  return out;
}

/** The fields of a required input object (a session, a message, a usage record, a patch), each
 * read once; null values are kept for the field's own validator to judge. `prefix` names the
 * fields in errors (`messages[0]` → `messages[0].role`). */
export function record<K extends string>(
  value: unknown,
  field: string,
  keys: readonly K[],
  prefix = "",
): { [P in K]?: unknown } {
  if (value === null || typeof value !== "object" || guarded(field, () => Array.isArray(value))) {
    throw new InvalidInputError(field, `expected an object, got ${describe(value)}`);
  }
  return readOnce(value, keys, (key) => (prefix ? `${prefix}.${key}` : key), true);
}

/**
 * The options of `owner` (e.g. "search", "openStore.patience"), read once into a plain record.
 * Undefined or null mean "all defaults"; anything but an object is refused. Each named option is
 * read exactly once (a getter cannot pass validation with one value and run with another), and
 * null reads as undefined: an option given as null takes its default. Other keys are ignored.
 */
export function options<K extends string>(
  value: unknown,
  owner: string,
  keys: readonly K[],
): { [P in K]?: unknown } {
  if (value === undefined || value === null) return {};
  const field = `${owner} options`;
  if (typeof value !== "object" || guarded(field, () => Array.isArray(value))) {
    throw new InvalidInputError(field, `expected an object or nothing, got ${describe(value)}`);
  }
  return readOnce(value, keys, (key) => `${owner}.${key}`, false);
}

/** An integer option in [min, max], or undefined. Only safe integers: a fractional or larger
 * value would reach SQLite as a REAL and fail there (or lose precision). -0 reads as 0. */
export function integerOption(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidInputError(field, `expected an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value + 0;
}

/** A wait in milliseconds: a finite number from 0 to MAX_WAIT_MS, or undefined. */
export function durationOption(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !(value >= 0 && value <= MAX_WAIT_MS)) {
    throw new InvalidInputError(
      field,
      `expected milliseconds from 0 to ${MAX_WAIT_MS} (one day), got ${describe(value)}`,
    );
  }
  return value + 0;
}

/** Epoch seconds (see epochSeconds), or undefined. */
export function instantOption(value: unknown, field: string): number | undefined {
  return value === undefined ? undefined : epochSeconds(value, field);
}

/** A boolean option, or undefined. */
export function flagOption(value: unknown, field: string): boolean | undefined {
  return value === undefined ? undefined : flag(value, field);
}

/** One of `allowed`, or undefined. */
export function choiceOption<T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !allowed.includes(value as T)) {
    throw new InvalidInputError(field, `expected one of ${allowed.join(", ")}, got ${describe(value)}`);
  }
  return value as T;
}

/** A function option (a callback), or undefined. */
export function callbackOption<F>(value: unknown, field: string): F | undefined {
  return value === undefined ? undefined : callback<F>(value, field);
}

/** A function. */
export function callback<F>(value: unknown, field: string): F {
  if (typeof value !== "function")
    throw new InvalidInputError(field, `expected a function, got ${describe(value)}`);
  return value as F;
}

/** An AbortSignal, or undefined. Checked by what the backfill loop calls on it, so a signal
 * from another realm or a polyfill passes. */
export function signalOption(value: unknown, field: string): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const signal = value as AbortSignal;
  const ok = typeof value === "object" && guarded(field, () => typeof signal.throwIfAborted === "function");
  if (!ok) throw new InvalidInputError(field, `expected an AbortSignal, got ${describe(value)}`);
  return signal;
}

/**
 * A non-empty list of distinct strings, each at most `maxChars` long and, when `allowed` is
 * given, one of those; at most `maxItems` distinct values (duplicates are dropped first). An
 * empty list is refused rather than read as "no filter" or "match nothing": omit the option for
 * no filter.
 */
export function listOption(
  value: unknown,
  field: string,
  limits: { maxItems: number; maxChars: number; allowed?: readonly string[] },
): string[] | undefined {
  if (value === undefined) return undefined;
  if (!guarded(field, () => Array.isArray(value))) {
    throw new InvalidInputError(field, `expected an array of strings, got ${describe(value)}`);
  }
  const items = guarded(field, () => Array.from(value as unknown[]));
  if (items.length === 0)
    throw new InvalidInputError(field, "must list at least one value; omit it for no filter");
  const distinct = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (typeof item !== "string" || (limits.allowed && !limits.allowed.includes(item))) {
      const expected = limits.allowed ? `one of ${limits.allowed.join(", ")}` : "a string";
      throw new InvalidInputError(`${field}[${i}]`, `expected ${expected}, got ${describe(item)}`);
    }
    if (item.length > limits.maxChars) {
      throw new InvalidInputError(
        `${field}[${i}]`,
        `${item.length} characters is longer than the ${limits.maxChars} allowed`,
      );
    }
    distinct.add(item);
    if (distinct.size > limits.maxItems) {
      throw new InvalidInputError(field, `lists more than the ${limits.maxItems} distinct values allowed`);
    }
  }
  return [...distinct];
}

/** Deep-check that `value` is plain JSON, replacing lone surrogates in every string. Every key
 * JSON.parse can produce is kept, `__proto__` included; a getter (or proxy trap) that throws is
 * bad input at its field. */
export function cleanJson(value: unknown, field: string, depth = 0): Json {
  // `depth` counts the arrays and objects around `value`: one more is a level too deep.
  if (depth >= MAX_JSON_LEVELS && typeof value === "object" && value !== null) {
    throw new InvalidInputError(field, `is nested more than ${MAX_JSON_LEVELS} levels deep`);
  }
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "string") return wellFormed(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new InvalidInputError(field, "contains a non-finite number");
    return value;
  }
  if (guarded(field, () => Array.isArray(value))) {
    const array = value as unknown[];
    const out: Json[] = [];
    for (let i = 0, length = guarded(field, () => array.length); i < length; i++) {
      const item = `${field}[${i}]`;
      out.push(
        cleanJson(
          guarded(item, () => array[i]),
          item,
          depth + 1,
        ),
      );
    }
    return out;
  }
  if (
    typeof value === "object" &&
    guarded(field, () => [Object.prototype, null].includes(Object.getPrototypeOf(value)))
  ) {
    // A null prototype: on an ordinary object, `out["__proto__"] = …` would set the prototype
    // and drop the key. JSON.stringify writes it like any other own key.
    const out: { [key: string]: Json } = Object.create(null);
    for (const key of guarded(field, () => Object.keys(value))) {
      const item = `${field}.${key}`;
      const child = guarded(item, () => (value as Record<string, unknown>)[key]);
      if (child === undefined) continue;
      const name = wellFormed(key);
      // Two keys that differ only in lone surrogates become one: the later would silently win.
      if (Object.hasOwn(out, name)) {
        throw new InvalidInputError(
          `${field}.${name}`,
          `two keys become ${JSON.stringify(name)} once their lone surrogates are replaced with U+FFFD, and one would overwrite the other; rename one`,
        );
      }
      out[name] = cleanJson(child, item, depth + 1);
    }
    return out;
  }
  throw new InvalidInputError(field, `must be plain JSON, got ${describe(value)}`);
}

/** JSON text of an optional plain object (metadata). */
export function jsonObject(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidInputError(field, `expected a plain object, got ${describe(value)}`);
  }
  return limitedJson(cleanJson(value, field), field);
}

/** JSON text of an optional array (tool calls). */
export function jsonArray(value: unknown, field: string): { text: string | null; length: number } {
  if (value === undefined || value === null) return { text: null, length: 0 };
  if (!Array.isArray(value)) throw new InvalidInputError(field, `expected an array, got ${describe(value)}`);
  return { text: limitedJson(cleanJson(value, field), field), length: value.length };
}

/** JSON text of any optional JSON value. */
export function jsonValue(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  return limitedJson(cleanJson(value, field), field);
}

function limitedJson(value: Json, field: string): string {
  const text = JSON.stringify(value);
  if (text.length > MAX_CONTENT_CHARS) {
    throw new InvalidInputError(
      field,
      `${text.length} characters of JSON is more than the ${MAX_CONTENT_CHARS} allowed`,
    );
  }
  return text;
}

const TEXT_KEYS = new Set(["text", "content", "thinking", "output", "input_text", "output_text", "refusal"]);

/** The searchable text of structured content: every string under a text-like key, and every
 * bare string in an array, in document order. */
export function extractText(value: Json): string {
  const pieces: string[] = [];
  const walk = (node: Json, textual: boolean): void => {
    if (typeof node === "string") {
      if (textual) pieces.push(node);
    } else if (Array.isArray(node)) {
      for (const item of node) walk(item, true);
    } else if (node && typeof node === "object") {
      for (const [key, item] of Object.entries(node)) walk(item, TEXT_KEYS.has(key));
    }
  };
  walk(value, true);
  return pieces.join("\n");
}

/** Message content → the searchable text column and, for structured content, its JSON. */
export function content(
  value: unknown,
  field = "message.content",
): { text: string | null; parts: string | null } {
  if (value === undefined || value === null) return { text: null, parts: null };
  if (typeof value === "string") {
    if (value.length > MAX_CONTENT_CHARS) {
      throw new InvalidInputError(
        field,
        `${value.length} characters is more than the ${MAX_CONTENT_CHARS} allowed`,
      );
    }
    return { text: wellFormed(value), parts: null };
  }
  if (typeof value === "object") {
    const clean = cleanJson(value, field) as StructuredContent;
    return { text: extractText(clean), parts: limitedJson(clean, field) };
  }
  throw new InvalidInputError(
    field,
    `expected a string, null, or an array/object of content parts, got ${describe(value)}`,
  );
}

/**
 * A file path the caller names — the store, a backup's destination, a repair's output: a string
 * at most MAX_PATH_CHARS long, without NUL characters or lone UTF-16 surrogates. A lone surrogate
 * has no UTF-8 spelling, and the runtimes disagree on the one they write: node:fs, Bun, Deno and
 * node:sqlite write U+FFFD, better-sqlite3's SQLite the surrogate's raw three bytes. One string
 * would name two files, the database one and its lock file and backups another.
 */
export function filePath(value: unknown, field: string): string {
  if (typeof value !== "string") {
    throw new InvalidInputError(
      field,
      `expected a file path string, got ${value === null ? "null" : typeof value}`,
    );
  }
  if (value.length > MAX_PATH_CHARS) {
    throw new InvalidInputError(
      field,
      `${value.length} characters is longer than the ${MAX_PATH_CHARS} allowed`,
    );
  }
  if (value.includes("\0")) throw new InvalidInputError(field, "must not contain a NUL character");
  if (wellFormed(value) !== value) {
    throw new InvalidInputError(
      field,
      "must not contain a lone UTF-16 surrogate (half of a pair): it has no spelling as a file name",
    );
  }
  return value;
}
