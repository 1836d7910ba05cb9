/** Types for prng.mjs (the harness is TypeScript, the roles plain JavaScript). */
export declare function hash32(text: string): number;
export declare class Rng {
  constructor(seed: number | string);
  u32(): number;
  next(): number;
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}
