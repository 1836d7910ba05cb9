/** Comparing a run's ratios with the committed baseline (packages/bench/baseline.json). */
import { METRICS, type TargetResult } from "./metrics.js";
import { round } from "./stats.js";

/** baseline.json: ratios per target and size, with where they came from. */
export interface Baseline {
  date: string;
  machine: string;
  note: string;
  ratios: Record<string, Record<string, Record<string, number>>>;
}

/** The tracked ratios of a run, shaped like the baseline. */
export function ratiosOf(results: TargetResult[]): Baseline["ratios"] {
  const ratios: Baseline["ratios"] = {};
  for (const r of results) {
    if (r.skipped) continue;
    for (const [size, result] of Object.entries(r.sizes)) {
      for (const [name, value] of Object.entries(result.metrics)) {
        if (METRICS[name]?.tolerance === undefined || !Number.isFinite(value)) continue;
        ratios[r.target] ??= {};
        const bySize = ratios[r.target] as Record<string, Record<string, number>>;
        bySize[size] ??= {};
        (bySize[size] as Record<string, number>)[name] = round(value);
      }
    }
  }
  return ratios;
}

export interface Verdict {
  regressions: string[];
  compared: number;
  missing: string[];
}

/** Every tracked ratio that got worse than the baseline by more than its tolerance. */
export function compare(baseline: Baseline, results: TargetResult[]): Verdict {
  const current = ratiosOf(results);
  const verdict: Verdict = { regressions: [], compared: 0, missing: [] };
  for (const [target, sizes] of Object.entries(baseline.ratios)) {
    for (const [size, metrics] of Object.entries(sizes)) {
      for (const [name, base] of Object.entries(metrics)) {
        const def = METRICS[name];
        const now = current[target]?.[size]?.[name];
        if (!def?.tolerance) continue;
        if (now === undefined) {
          verdict.missing.push(`${target} ${size} ${name}`);
          continue;
        }
        verdict.compared++;
        const limit = def.better === "higher" ? base * (1 - def.tolerance) : base * (1 + def.tolerance);
        const worse = def.better === "higher" ? now < limit : now > limit;
        if (worse) {
          verdict.regressions.push(
            `${target} ${size} ${name} (${def.label}): ${now} vs baseline ${base}, allowed ${def.better === "higher" ? "≥" : "≤"} ${round(limit)} (tolerance ${def.tolerance * 100}%)`,
          );
        }
      }
    }
  }
  return verdict;
}

/** Per ratio, the less favourable of `a` and `b` (a ratio only one of them has is kept). */
export function mergeWorst(a: Baseline["ratios"], b: Baseline["ratios"]): Baseline["ratios"] {
  const out: Baseline["ratios"] = JSON.parse(JSON.stringify(a));
  for (const [target, sizes] of Object.entries(b)) {
    for (const [size, metrics] of Object.entries(sizes)) {
      out[target] ??= {};
      const bySize = out[target] as Record<string, Record<string, number>>;
      bySize[size] ??= {};
      const into = bySize[size] as Record<string, number>;
      for (const [name, value] of Object.entries(metrics)) {
        const old = into[name];
        const higherIsBetter = METRICS[name]?.better === "higher";
        into[name] = old === undefined ? value : higherIsBetter ? Math.min(old, value) : Math.max(old, value);
      }
    }
  }
  return out;
}

/** The ratios whose metric names start with one of `prefixes`. */
export function onlyMetrics(ratios: Baseline["ratios"], prefixes: readonly string[]): Baseline["ratios"] {
  const out: Baseline["ratios"] = {};
  for (const [target, sizes] of Object.entries(ratios)) {
    for (const [size, metrics] of Object.entries(sizes)) {
      for (const [name, value] of Object.entries(metrics)) {
        if (!prefixes.some((p) => name.startsWith(p))) continue;
        out[target] ??= {};
        const bySize = out[target] as Record<string, Record<string, number>>;
        bySize[size] ??= {};
        (bySize[size] as Record<string, number>)[name] = value;
      }
    }
  }
  return out;
}

/** The ratios measured at one of `sizes` (e.g. "1m"). */
export function onlySizes(ratios: Baseline["ratios"], sizes: readonly string[]): Baseline["ratios"] {
  const out: Baseline["ratios"] = {};
  for (const [target, bySize] of Object.entries(ratios)) {
    for (const [size, metrics] of Object.entries(bySize)) {
      if (!sizes.includes(size)) continue;
      out[target] ??= {};
      (out[target] as Record<string, Record<string, number>>)[size] = { ...metrics };
    }
  }
  return out;
}
