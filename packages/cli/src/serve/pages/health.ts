/** Health at a glance: the checks `sessiondb doctor` makes that are cheap enough for a page view. */
import {
  type Finding,
  ftsFinding,
  journalFinding,
  lockHolder,
  serverFindings,
  walVerdict,
} from "../../commands/doctor.js";
import { count } from "../../format.js";
import type { Runtime } from "../../runtime.js";
import { type CliStore, driverOf } from "../../server.js";
import { facets } from "../data.js";
import { type Html, html } from "../html.js";
import { mode, page, type Site } from "../layout.js";

function card(f: Finding, extra: Html | "" = ""): Html {
  return html`<div class="finding ${f.status}" data-check="${f.check}"><h3>${f.check}<span class="status">${f.status}</span></h3><p>${f.detail}</p>${extra}</div>`;
}

/** `storeFile` is undefined for a store on a libSQL server (no journal policy, no lock file). */
export async function healthPage(
  store: CliStore,
  runtime: Pick<Runtime, "name" | "version">,
  site: Site,
  storeFile: string | undefined,
): Promise<Html> {
  const fts = await store.ftsStatus();
  const [messages, menus] = [await store.messageCount(), await facets(store)];
  const progress =
    fts.state === "backfilling" && fts.total
      ? html`<progress max="${fts.total}" value="${fts.indexed ?? 0}"></progress>`
      : "";
  const findings: Array<[Finding, Html | ""]> = [
    [
      {
        check: "sqlite",
        status: "ok",
        detail: `SQLite ${store.sqliteVersion} via ${driverOf(store)} on ${runtime.name} ${runtime.version}`,
      },
      "",
    ],
    ...(storeFile === undefined
      ? serverFindings(store.sqliteVersion, store.journalMode).map((f): [Finding, ""] => [f, ""])
      : ([
          [walVerdict(store.sqliteVersion, store.journalMode), ""],
          [journalFinding(store.journalMode), ""],
        ] as Array<[Finding, ""]>)),
    [ftsFinding(fts), progress],
    [
      {
        check: "trigram index",
        status: fts.trigram ? "ok" : "note",
        detail: fts.trigram
          ? "present: substring and CJK search use it"
          : "absent: substring search answers by LIKE",
      },
      "",
    ],
    ...(storeFile === undefined ? [] : ([[lockHolder(storeFile), ""]] as Array<[Finding, ""]>)),
  ];
  const body = html`<h1>Health</h1>
<div class="sub">${site.store} · ${count(menus.sessions)} sessions · ${count(messages)} messages · ${mode(site)} view. The full check, with integrity and file permissions, is <span class="mono">sessiondb doctor</span>.</div>
<section class="findings" id="findings">${findings.map(([f, extra]) => card(f, extra))}</section>`;
  return page({ title: "Health", section: "health", body, site });
}
