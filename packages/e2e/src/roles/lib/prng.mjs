/**
 * Seeded randomness shared by every role (and mirrored by the harness): mulberry32 over 32-bit
 * integer ops only, so a seed gives the same sequence on Node, Bun and Deno.
 */

/** FNV-1a of a string: turns "seed/arm/episode/role" into a 32-bit seed. */
export function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A small deterministic generator. */
export class Rng {
  #s;
  constructor(seed) {
    this.#s = (typeof seed === "string" ? hash32(seed) : seed) >>> 0;
  }
  /** Next 32-bit unsigned integer. */
  u32() {
    this.#s = (this.#s + 0x6d2b79f5) >>> 0;
    let t = this.#s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Uniform in [0, 1). */
  next() {
    return this.u32() / 4294967296;
  }
  /** Integer in [min, max]. */
  int(min, max) {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  /** True with probability p. */
  chance(p) {
    return this.next() < p;
  }
  /** One element of a non-empty array. */
  pick(items) {
    return items[Math.floor(this.next() * items.length)];
  }
}
