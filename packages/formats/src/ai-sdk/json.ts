/**
 * A UIMessage checked as plain JSON before any of it is mapped: what the store keeps as the
 * message's original must read back deep-equal, so anything JSON cannot hold (a cycle, a
 * function, a non-finite number, a class instance) is refused here, naming the path, rather than
 * silently changed by a JSON round trip.
 */
import { InvalidInputError, type Json } from "@sessiondb/core";

/** How deep a message may nest: the store's own limit for stored JSON. */
const MAX_LEVELS = 64;

/** The most characters a message's JSON may have: the store's limit for one stored value, so a
 * message the store would refuse is refused here with its index. */
export const MAX_MESSAGE_CHARS = 16 * 1024 * 1024;

/**
 * `value` as plain JSON (keys whose value is `undefined` dropped, as JSON.stringify drops them),
 * or an InvalidInputError naming `field` and the path inside it. Characters are counted on the
 * way, so a 50 MB string is refused before it is copied into a statement.
 */
export function plainJson(value: unknown, field: string): Json {
  const budget = { chars: 0 };
  const ancestors = new Set<object>();
  const walk = (current: unknown, path: string, depth: number): Json => {
    if (current === null || typeof current === "boolean") return current;
    if (typeof current === "string") {
      budget.chars += current.length;
      if (budget.chars > MAX_MESSAGE_CHARS) {
        throw new InvalidInputError(
          path,
          `the message is longer than the ${MAX_MESSAGE_CHARS} characters allowed`,
        );
      }
      return current;
    }
    if (typeof current === "number") {
      if (!Number.isFinite(current))
        throw new InvalidInputError(path, "is a non-finite number, which JSON cannot hold");
      return current;
    }
    if (typeof current !== "object")
      throw new InvalidInputError(path, `is a ${typeof current}, which JSON cannot hold`);
    if (ancestors.has(current))
      throw new InvalidInputError(path, "refers back to an object that contains it (a cycle)");
    if (depth >= MAX_LEVELS)
      throw new InvalidInputError(path, `is nested more than ${MAX_LEVELS} levels deep`);
    ancestors.add(current);
    try {
      if (Array.isArray(current)) return current.map((item, i) => walk(item, `${path}[${i}]`, depth + 1));
      const proto = Object.getPrototypeOf(current);
      if (proto !== Object.prototype && proto !== null) {
        throw new InvalidInputError(
          path,
          `is a ${proto?.constructor?.name ?? "class"} instance, not a plain object`,
        );
      }
      const out: { [key: string]: Json } = {};
      for (const [key, child] of Object.entries(current)) {
        if (child === undefined) continue;
        budget.chars += key.length;
        Object.defineProperty(out, key, {
          value: walk(child, `${path}.${key}`, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    } finally {
      ancestors.delete(current);
    }
  };
  return walk(value, field, 0);
}
