/**
 * Sides taking turns over the same calls: `block` calls of one side, then the same calls of the
 * next, the order rotated every turn (two sides: flipped), so drift in the machine hits all alike. Call `i` gets
 * the i-th slice of `size` items of `items` (wrapping around). Returns each side's latencies (ms).
 */
import { now } from "./stats.js";

export function alternate<T, S extends string>(
  sides: Record<S, (batch: T[]) => void>,
  order: readonly S[],
  items: readonly T[],
  count: number,
  size: number,
  block: number,
): Record<S, number[]> {
  const lat = Object.fromEntries(order.map((side) => [side, [] as number[]])) as Record<S, number[]>;
  for (let done = 0; done < count; done += block) {
    const shift = (done / block) % order.length;
    for (const side of [...order.slice(shift), ...order.slice(0, shift)]) {
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
