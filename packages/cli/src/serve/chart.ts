/**
 * Charts as inline SVG drawn on the server: readable without JavaScript, no charting library to
 * ship, styled by the page's CSS (series colours are classes, so dark mode applies). Each bar
 * carries a <title> with its exact numbers; the tables beside the charts hold them all.
 */
import { type Html, html } from "./html.js";

export interface Series {
  name: string;
  values: readonly number[];
}

const WIDTH = 640;

/** A round axis maximum at or above `max` (1, 2, 2.5 or 5 times a power of ten). */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const f = (n: number) => Number(n.toFixed(1));

/** Stacked columns, one per label (days), with a y axis of four steps. */
export function columns(
  labels: readonly string[],
  series: readonly Series[],
  format: (n: number) => string,
): Html {
  const height = 240;
  const left = 58;
  const bottom = 26;
  const top = 10;
  const plotW = WIDTH - left - 8;
  const plotH = height - top - bottom;
  const sums = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...sums));
  const slot = plotW / Math.max(1, labels.length);
  const barW = Math.max(1, Math.min(36, slot * 0.72));
  const every = Math.max(1, Math.ceil(labels.length / 10));
  const ticks = [0, 1, 2, 3, 4].map((k) => (max * k) / 4);
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${series.map((s) => s.name).join(" and ")} per day">
${ticks.map((v) => {
  const y = f(top + plotH - (v / max) * plotH);
  return html`<line class="axis" x1="${left}" x2="${WIDTH - 8}" y1="${y}" y2="${y}"/><text x="${left - 6}" y="${f(y + 4)}" text-anchor="end">${format(v)}</text>`;
})}
${labels.map((label, i) => {
  const x = f(left + slot * i + (slot - barW) / 2);
  let y = top + plotH;
  const parts = series.map((s, k) => {
    const h = ((s.values[i] ?? 0) / max) * plotH;
    y -= h;
    return h > 0 ? html`<rect class="s${k}" x="${x}" y="${f(y)}" width="${f(barW)}" height="${f(h)}"/>` : "";
  });
  const tip = `${label}: ${series.map((s) => `${s.name} ${format(s.values[i] ?? 0)}`).join(", ")}`;
  return html`<g class="col"><title>${tip}</title>${parts}<rect x="${f(left + slot * i)}" y="${top}" width="${f(slot)}" height="${plotH}" fill="transparent"/></g>${
    i % every === 0
      ? html`<text x="${f(left + slot * i + slot / 2)}" y="${height - 8}" text-anchor="middle">${label.slice(5)}</text>`
      : ""
  }`;
})}
</svg>`;
}

/** Horizontal bars, one per labelled value (models, sources). */
export function bars(items: ReadonlyArray<readonly [string, number]>, format: (n: number) => string): Html {
  const row = 26;
  const labelW = 170;
  const valueW = 90;
  const height = Math.max(1, items.length) * row + 4;
  const max = Math.max(0, ...items.map(([, v]) => v)) || 1;
  const plotW = WIDTH - labelW - valueW;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="bar chart">
${items.map(([label, value], i) => {
  const y = i * row + 4;
  const w = Math.max(value > 0 ? 2 : 0, (value / max) * plotW);
  const shown = label.length > 24 ? `${label.slice(0, 23)}…` : label;
  return html`<g class="bar"><title>${label}: ${format(value)}</title><text x="${labelW - 8}" y="${y + 15}" text-anchor="end">${shown}</text><rect class="s${i % 6}" x="${labelW}" y="${y + 3}" width="${f(w)}" height="${row - 8}" rx="3"/><text x="${f(labelW + w + 6)}" y="${y + 15}">${format(value)}</text></g>`;
})}
</svg>`;
}
