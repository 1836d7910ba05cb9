/**
 * Two sides taking turns over the same calls: `block` calls of one side, then the same calls of
 * the other, the order flipped every turn, so drift in the machine hits both alike. Call `i` gets
 * the i-th slice of `size` items of `items` (wrapping around). Returns each side's latencies (ms).
 */
import { now } from "./stats.js";

export function alternate<T, S extends string>(
  sides: Record<S, (batch: T[]) => void>,
  order: readonly [S, S],
  items: readonly T[],
  count: number,
  size: number,
  block: number,
): Record<S, number[]> {
  const [a, b] = order;
  const lat = { [a]: [] as number[], [b]: [] as number[] } as Record<S, number[]>;
  for (let done = 0; done < count; done += block) {
    const turn = (done / block) % 2 === 0 ? order : ([b, a] as const);
    for (const side of turn) {
      for (let i = done; i < Math.min(count, done + block); i++) {
        const start = (i * size) % items.length;
        const batch = items.slice(start, start + size);
        const t0 = now();
        sides[side](batch);
        lat[side].push(now() - t0);
      }
    }
  }
  return lat;
}
