/** Usage: tokens and cost per day, by model and by source, as charts with the numbers beside them. */
import { count } from "../../format.js";
import type { CliStore } from "../../server.js";
import { bars, columns } from "../chart.js";
import { facets, MAX_DAYS, type Totals, usageReport } from "../data.js";
import { type Html, html } from "../html.js";
import { compact, dollars, page, type Site } from "../layout.js";
import { day, type Params, text } from "../params.js";

/** Totals per key; the cache column only when some cache tokens were recorded. */
function totalsTable(label: string, rows: Array<[string, Totals]>, cache: boolean, mono = false): Html {
  return html`<div class="scroll"><table class="nums"><thead><tr><th>${label}</th><th class="num">Sessions</th><th class="num">Input</th><th class="num">Output</th>${
    cache ? html`<th class="num">Cache</th>` : ""
  }<th class="num">Cost</th></tr></thead>
<tbody>${rows.map(
    ([key, t]) =>
      html`<tr><td${mono ? html` class="mono"` : ""}>${key}</td><td class="num">${count(t.sessions)}</td><td class="num">${count(t.input)}</td><td class="num">${count(t.output)}</td>${
        cache ? html`<td class="num">${count(t.cache)}</td>` : ""
      }<td class="num">${dollars(t.cost)}</td></tr>`,
  )}</tbody></table></div>`;
}

export async function usagePage(store: CliStore, params: Params, site: Site): Promise<Html> {
  const source = text(params.one("source"));
  const fromText = text(params.one("from"));
  const toText = text(params.one("to"));
  const from = day(fromText, "from");
  const to = day(toText, "to", 1);
  const [report, menus] = [
    await usageReport(store, {
      ...(source ? { source } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
    }),
    await facets(store),
  ];
  const { byDay, byModel, bySource, total } = report;
  const tokens = (t: Totals) => t.input + t.output + t.cache + t.reasoning;
  const empty = total.sessions === 0 || tokens(total) + total.cost === 0;
  const cache = total.cache > 0;
  const body = html`<h1>Usage</h1>
<div class="sub">Tokens and cost recorded with each session, by the day the session started (per-day views span at most the last ${MAX_DAYS} days with usage).</div>
<form class="filters" method="get" action="/usage">
<label>Source<select name="source"><option value="">all</option>${menus.sources.map((s) => html`<option${s === source ? " selected" : ""}>${s}</option>`)}</select></label>
<label>Started from<input type="date" name="from" value="${fromText ?? ""}"></label>
<label>to<input type="date" name="to" value="${toText ?? ""}"></label>
<button type="submit">Apply</button> <a class="button plain" href="/usage">Reset</a>
</form>
<div class="facts"><span><b>${count(total.sessions)}</b> sessions</span><span><b>${compact(total.input)}</b> input tokens</span><span><b>${compact(total.output)}</b> output tokens</span><span><b>${compact(total.cache)}</b> cache tokens</span><span><b>${dollars(total.cost)}</b> total cost</span></div>
${
  empty
    ? html`<div class="panel empty">No token usage recorded for these sessions.</div>`
    : html`<div class="grid">
<div class="card" id="chart-tokens"><h2>Tokens per day</h2><div class="legend"><span><i class="s0"></i>input</span><span><i class="s1"></i>output</span>${
        cache ? html`<span><i class="s2"></i>cache</span>` : ""
      }</div>
${columns(
  byDay.map(([d]) => d),
  [
    { name: "input", values: byDay.map(([, t]) => t.input) },
    { name: "output", values: byDay.map(([, t]) => t.output) },
    { name: "cache", values: byDay.map(([, t]) => t.cache) },
  ],
  compact,
)}</div>
<div class="card"><h2>Per day</h2>${totalsTable("Day", [...byDay].reverse(), cache)}</div>
<div class="card" id="chart-cost"><h2>Cost per day</h2>${columns(
        byDay.map(([d]) => d),
        [{ name: "cost", values: byDay.map(([, t]) => t.cost) }],
        dollars,
      )}</div>
<div class="card"><h2>Totals</h2>${totalsTable("", [["all sessions", total]], cache)}</div>
<div class="card" id="chart-models"><h2>Cost by model</h2>${bars(
        byModel.map(([m, t]) => [m, t.cost] as const),
        dollars,
      )}</div>
<div class="card"><h2>By model</h2>${totalsTable("Model", byModel, cache, true)}</div>
<div class="card" id="chart-sources"><h2>Tokens by source</h2>${bars(
        bySource.map(([s, t]) => [s, tokens(t)] as const),
        compact,
      )}</div>
<div class="card"><h2>By source</h2>${totalsTable("Source", bySource, cache)}</div>
</div>`
}`;
  return page({ title: "Usage", section: "usage", body, site });
}
