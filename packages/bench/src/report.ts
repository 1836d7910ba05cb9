/** The side-by-side Markdown table (runtimes as columns) and the goal summary. */
import { METRICS, type MetricDef, meetsGoal, type TargetResult } from "./metrics.js";
import { round } from "./stats.js";

export interface RunMeta {
  date: string;
  mode: string;
  seed: number;
  cores: number;
  sizes: string[];
  seconds?: number;
}

function cell(value: number | undefined, goal: boolean | undefined): string {
  if (value === undefined) return "—";
  if (!Number.isFinite(value)) return String(value);
  const text = String(round(value));
  return goal === undefined ? text : `${text} ${goal ? "✅" : "❌"}`;
}

/** A row `bench:check` tracks (a ratio with a tolerance) is bold; an untracked ratio is not. */
function tracked(label: string, def: MetricDef): string {
  return def.tolerance === undefined ? label : `**${label}**`;
}

/** One Markdown document: a table per size, then notes, errors and skipped targets. */
export function markdown(results: TargetResult[], meta: RunMeta): string {
  const ran = results.filter((r) => !r.skipped);
  const out: string[] = [
    `# sessiondb bench — ${meta.date} (${meta.mode}, seed ${meta.seed}, ${meta.cores} cores)`,
    "",
    ran.map((r) => `- **${r.label}**: ${r.runtime}, SQLite ${r.sqliteVersion}`).join("\n"),
  ];
  for (const r of results.filter((x) => x.skipped)) out.push(`- **${r.label}**: skipped — ${r.skipped}`);
  for (const size of meta.sizes) {
    const first = ran.find((r) => r.sizes[size])?.sizes[size];
    if (!first) continue;
    out.push(
      "",
      `## ${size} messages (${first.messages} rows, ${round(first.contentMB)} MB of indexed text)`,
      "",
    );
    out.push(`| figure | unit | goal | ${ran.map((r) => r.label).join(" | ")} |`);
    out.push(`|---|---|---|${ran.map(() => "---:").join("|")}|`);
    for (const [name, def] of Object.entries(METRICS)) {
      const values = ran.map((r) => r.sizes[size]?.metrics[name]);
      if (values.every((v) => v === undefined)) continue;
      const goal = def.goal === undefined ? "" : `${def.better === "higher" ? "≥" : "≤"} ${def.goal}`;
      const label = tracked(def.label, def);
      out.push(
        `| ${label} | ${def.unit} | ${goal} | ${values.map((v) => cell(v, v === undefined ? undefined : meetsGoal(def, v))).join(" | ")} |`,
      );
    }
    const notes = new Set(ran.flatMap((r) => Object.keys(r.sizes[size]?.notes ?? {})));
    for (const note of notes) {
      out.push(`| _${note}_ | | | ${ran.map((r) => r.sizes[size]?.notes[note] ?? "—").join(" | ")} |`);
    }
    for (const r of ran) {
      for (const [suite, error] of Object.entries(r.sizes[size]?.errors ?? {})) {
        out.push("", `**${r.label} ${size}: ${suite} failed:** \`${error.split("\n")[0]}\``);
      }
    }
  }
  out.push(...growth(ran, meta.sizes));
  if (meta.seconds !== undefined) out.push("", `Total wall time: ${Math.round(meta.seconds)} s.`);
  return `${out.join("\n")}\n`;
}

/**
 * The growth table: every figure measured at more than one size, as "10k → 100k → 1m" per
 * target, so a figure that grows with the store (cold open, search, append, writer latency,
 * peak RSS must not) shows in one row. A size a target did not measure shows as "—".
 */
function growth(ran: TargetResult[], sizes: readonly string[]): string[] {
  if (sizes.length < 2) return [];
  const out = [
    "",
    `## Growth ${sizes.join(" → ")}`,
    "",
    `| figure | unit | ${ran.map((r) => r.label).join(" | ")} |`,
    `|---|---|${ran.map(() => "---:").join("|")}|`,
  ];
  for (const [name, def] of Object.entries(METRICS)) {
    const series = ran.map((r) => sizes.map((size) => r.sizes[size]?.metrics[name]));
    const measured = (values: Array<number | undefined>) => values.filter((v) => v !== undefined).length;
    if (!series.some((values) => measured(values) > 1)) continue;
    const label = tracked(def.label, def);
    const cells = series.map((values) =>
      measured(values) === 0
        ? "—"
        : values.map((v) => (v === undefined ? "—" : String(round(v)))).join(" → "),
    );
    out.push(`| ${label} | ${def.unit} | ${cells.join(" | ")} |`);
  }
  return out;
}
