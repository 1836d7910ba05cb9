/**
 * Reading back the state a mapper saved (`ItemMapper.save`): it comes from a store's metadata,
 * which anyone may have edited, so every field is checked and a state that is not what `save`
 * writes throws, which makes the importer read the file from its first line instead.
 */
import type { Json } from "@sessiondb/core";

export type JsonObject = { [key: string]: Json };

export class BadMapperState extends Error {
  constructor(what: string) {
    super(`the saved mapper state has no valid ${what}`);
    this.name = "BadMapperState";
  }
}

export function stateObject(state: Json, what: string): JsonObject {
  if (state === null || typeof state !== "object" || Array.isArray(state)) throw new BadMapperState(what);
  return state;
}

export function stateStrings(value: Json | undefined, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw new BadMapperState(what);
  return value as string[];
}

/** A Map<string, string> saved as `[key, value]` pairs. */
export function statePairs(value: Json | undefined, what: string): [string, string][] {
  if (
    !Array.isArray(value) ||
    !value.every((p) => Array.isArray(p) && p.length === 2 && p.every((v) => typeof v === "string"))
  )
    throw new BadMapperState(what);
  return value as [string, string][];
}

export function stateOptionalString(value: Json | undefined, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new BadMapperState(what);
  return value;
}

export function stateCount(value: Json | undefined, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw new BadMapperState(what);
  return value;
}
