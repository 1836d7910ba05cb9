/** Small measurement helpers shared by the suites: a clock, percentiles, peak RSS. */
import { readFileSync } from "node:fs";
import process from "node:process";

/** Milliseconds from a monotonic clock (performance.now exists on Node, Bun and Deno). */
export const now = (): number => performance.now();

/** The `p`-th percentile (0–100) of `samples`, nearest-rank on a sorted copy; NaN when empty. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Median. */
export const median = (samples: readonly number[]): number => percentile(samples, 50);

/** Mean of the fastest `1 - slowestShare` of `samples` (the slowest share left out); NaN when
 * empty. */
export function trimmedMean(samples: readonly number[], slowestShare: number): number {
  const kept = [...samples].sort((a, b) => a - b).slice(0, Math.ceil(samples.length * (1 - slowestShare)));
  return kept.length === 0 ? Number.NaN : kept.reduce((a, b) => a + b, 0) / kept.length;
}

/** Median and 99th percentile of a sample, with its size. */
export interface Latency {
  p50: number;
  p99: number;
  n: number;
}

export function latency(samples: readonly number[]): Latency {
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), n: samples.length };
}

/**
 * Peak resident set size of this process in MiB: Linux's VmHWM (a true high-water mark, so a
 * peak inside one long synchronous SQLite call is caught). Elsewhere the current RSS, which
 * misses such peaks; `exact` says which one it is.
 */
export function peakRssMiB(): { mib: number; exact: boolean } {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    if (match) return { mib: Number(match[1]) / 1024, exact: true };
  } catch {
    // not Linux
  }
  return { mib: process.memoryUsage().rss / (1024 * 1024), exact: false };
}

/** Round for display and JSON: 3 significant digits, integers kept whole. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 1000) return Math.round(value);
  return Number(value.toPrecision(3));
}

/** Sleep without blocking the event loop. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
