/**
 * Seeds. One master seed per run (SESSIONDB_SEED, or a random one that is printed); every
 * episode derives its own from (master, arm, episode), so one episode can be replayed alone.
 */
import { randomInt } from "node:crypto";
// The same generator the roles use, so a seed means the same thing on both sides.
import { hash32, Rng } from "../roles/lib/prng.mjs";

export { hash32, Rng };

/** The master seed: SESSIONDB_SEED (decimal) or a fresh random one. */
export function masterSeed(): number {
  const text = process.env.SESSIONDB_SEED;
  if (text !== undefined && text.trim() !== "") {
    const n = Number(text.trim());
    if (!Number.isInteger(n) || n < 0)
      throw new Error(`SESSIONDB_SEED must be a non-negative integer, got ${JSON.stringify(text)}`);
    return n >>> 0;
  }
  return randomInt(0, 2 ** 32 - 1);
}

/** The seed one episode in one arm runs with. */
export function episodeSeed(master: number, arm: string, episode: string): number {
  return hash32(`${master}/${arm}/${episode}`);
}
