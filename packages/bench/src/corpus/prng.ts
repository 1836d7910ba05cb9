/**
 * A small seeded PRNG (mulberry32-style: a Weyl sequence through a 32-bit avalanche mix). Not
 * cryptographic; chosen because it is tiny, fast, has a full 2^32 period and gives the same
 * sequence on every JavaScript engine (only 32-bit integer ops and Math.imul).
 */
export class Prng {
  #state: number;

  constructor(seed: number) {
    // Mix the seed once so seeds 0, 1, 2 … do not start on neighbouring states.
    this.#state = (Math.imul(seed >>> 0, 0x9e3779b1) ^ 0x6d2b79f5) >>> 0;
  }

  /** Next 32-bit unsigned integer. */
  nextU32(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Integer in [min, max] (inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One key of `weights`, chosen with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const keys = Object.keys(weights) as K[];
    let total = 0;
    for (const key of keys) total += weights[key];
    let x = this.next() * total;
    for (const key of keys) {
      x -= weights[key];
      if (x < 0) return key;
    }
    return keys[keys.length - 1] as K;
  }

  /** Standard normal (Box–Muller; one value per call keeps the stream simple to reason about). */
  normal(): number {
    const u = 1 - this.next(); // (0, 1]: log(0) never happens
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal with the given median and shape σ: the heavy tail of tool output lengths. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** An independent generator derived from this one (so sub-streams do not shift each other). */
  fork(): Prng {
    return new Prng(this.nextU32());
  }
}
