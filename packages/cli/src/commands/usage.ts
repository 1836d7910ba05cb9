import { defineCommand } from "../command.js";
import { EXIT, UsageError } from "../exit.js";
import { count, plural, printJson, table, usd } from "../format.js";
import { openFor } from "../open.js";
import { PAGER_OPTION, page } from "../pager.js";
import { type Totals, usageReport } from "../serve/data.js";
import { parseTime } from "../when.js";
import { terminalWidth } from "../width.js";

const GROUPS = ["day", "model", "source"] as const;
type Group = (typeof GROUPS)[number];

const tokens = (t: Totals) => t.input + t.output + t.cache + t.reasoning;

function rowsOf(entries: Array<[string, Totals]>, group: Group): string[][] {
  return entries
    .filter(([, t]) => group !== "day" || t.sessions > 0)
    .map(([key, t]) => [
      key,
      count(t.sessions),
      ...(group === "model" ? [count(t.calls)] : []),
      count(t.input),
      count(t.output),
      count(t.cache),
      count(t.reasoning),
      count(tokens(t)),
      // "~": the cost is, in part or whole, estimated from list prices.
      `${t.estimatedCost > 0 ? "~" : ""}${usd(t.cost)}`,
    ]);
}

export const usage = defineCommand({
  name: "usage",
  usage: "usage [--by day|model|source] [--since T] [--until T] [--source S] [--no-pager] [--json]",
  help: [
    "Totals of the sessions started in the range (archived ones included), then one row per",
    "group. A session's tokens and cost are the usage recorded for it (recordUsage).",
  ].join("\n"),
  options: {
    by: {
      type: "string",
      value: "G",
      default: "day",
      help: "day (UTC, the day a session started; default), model or source",
    },
    since: {
      type: "string",
      value: "T",
      parse: parseTime,
      help: "sessions started at or after T (2025-01-31, an ISO time, or epoch seconds)",
    },
    until: { type: "string", value: "T", parse: parseTime, help: "sessions started before T" },
    source: { type: "string", value: "S", help: "only sessions from this source" },
    ...PAGER_OPTION,
  },
  notes: [
    "Per model, a session counts once under each model it used, with that model's calls; per day",
    "and source, the session's totals count once. Days without sessions are left out; at most the",
    "last 366 days with usage are listed (narrow the range with --since/--until).",
    "--json prints { total, byDay, byModel, bySource } with every group. Costs are sums exact to",
    "what was recorded; `estimatedCost` is the part estimated from list prices (usage imported",
    'from a format that records no cost: billing mode "estimated"); in the table, "~" marks it.',
  ].join("\n"),
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const group = GROUPS.find((g) => g === values.by);
    if (group === undefined)
      throw new UsageError(`--by must be day, model or source, got ${JSON.stringify(values.by)}`);
    const { since, until } = values;
    const { store } = await openFor(runtime, values, "read");
    try {
      const report = await usageReport(store, {
        ...(values.source ? { source: values.source } : {}),
        ...(since !== undefined ? { from: since } : {}),
        ...(until !== undefined ? { to: until } : {}),
      });
      if (values.json) {
        const named = (entries: Array<[string, Totals]>, key: string) =>
          entries.map(([name, t]) => ({ [key]: name, ...t, tokens: tokens(t) }));
        printJson({
          total: { ...report.total, tokens: tokens(report.total) },
          byDay: named(
            report.byDay.filter(([, t]) => t.sessions > 0),
            "day",
          ),
          byModel: named(report.byModel, "model"),
          bySource: named(report.bySource, "source"),
        });
        return EXIT.OK;
      }
      const t = report.total;
      const estimate =
        t.estimatedCost > 0 ? ` (${usd(t.estimatedCost)} of it estimated from list prices)` : "";
      const summary = `${plural(t.sessions, "session")} · ${count(tokens(t))} tokens (${count(t.input)} in, ${count(t.output)} out, ${count(t.cache)} cache, ${count(t.reasoning)} reasoning) · ${usd(t.cost)}${estimate}`;
      const entries = group === "day" ? report.byDay : group === "model" ? report.byModel : report.bySource;
      const rows = rowsOf(entries, group);
      const header = [
        group.toUpperCase(),
        "SESSIONS",
        ...(group === "model" ? ["CALLS"] : []),
        "INPUT",
        "OUTPUT",
        "CACHE",
        "REASONING",
        "TOKENS",
        "COST",
      ];
      const right = header.map((_, i) => i).filter((i) => i > 0);
      const body = rows.length ? `\n\n${table(header, rows, { right, width: terminalWidth() })}` : "";
      await page(`${summary}${body}\n`, values);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});
