/**
 * After an episode that damages the store on purpose (every process stopped): record the
 * damage, repair the store, and assert only what repair guarantees — never whether damage
 * happened in this run.
 *
 * 1. Fingerprint the damaged files (sha256 of the database and its -wal/-journal) and take a
 *    salvage read of a copy (`salvage` role: plain SQLite, row by row): integrity problems and
 *    every row the file still holds. Against the ledger, acknowledged appends split into
 *    recoverable (in the file, once, with their id and body) and lost.
 * 2. `repairStore` on the damaged store, on a seeded runtime.
 * 3. Assert: repair produced a sound store; the damaged original was never modified (kept
 *    byte for byte as `<db>.corrupt-<ts>`, 0600, when swapped; untouched when found sound); the
 *    repaired store holds every row of the salvage read, byte for byte, and nothing that no
 *    writer intended; and the checker finds every recoverable acknowledged append there exactly
 *    once, found by search, with integrity_check and FTS integrity clean.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// The ledger the roles write, read the same way the checker reads it.
import { readLedger } from "../roles/lib/ledger.mjs";
import type { Episode } from "./episode.js";
import { RUNTIMES } from "./runtimes.js";

/** What the checker must find on the repaired store; every other kind is damage it kept. */
const REPAIR_GUARANTEES = new Set(["integrity", "acked-not-once", "search", "search-prefix", "fts-state"]);

const COMPANIONS = ["", "-wal", "-journal"];

interface SalvagedRow {
  id: number;
  session: string;
  role: string;
  token?: string;
  sha: string;
  intact: boolean | null;
}

interface Salvage {
  openError?: string;
  integrity: string[];
  fts: Record<string, string>;
  sessions: string[];
  messages: SalvagedRow[];
  unreadable: number;
}

/** The numbers one damaging run produced (printed, and kept for the README table). */
export interface DamageNumbers {
  acked: number;
  lost: number;
  recoverable: number;
  tornInFile: number;
  integrityProblems: number;
  ftsBroken: number;
  rowsInFile: number;
  unreadableIds: number;
  strategy: string;
  repairedRows: number;
  repairExtra: number;
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** sha256 of the database and each companion that exists ("" → the database). */
function fingerprint(path: string): Map<string, string> {
  const prints = new Map<string, string>();
  for (const suffix of COMPANIONS)
    if (existsSync(`${path}${suffix}`)) prints.set(suffix, sha256(`${path}${suffix}`));
  return prints;
}

/** Copy the database and its companions to `dir/state.db` (nobody has them open). */
function copyStore(from: string, dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o777 });
  const to = join(dir, "state.db");
  for (const suffix of COMPANIONS)
    if (existsSync(`${from}${suffix}`)) copyFileSync(`${from}${suffix}`, `${to}${suffix}`);
  return to;
}

async function salvageRead(ep: Episode, store: string, label: string): Promise<Salvage | undefined> {
  const out = join(ep.dir, `${label}.salvage.json`);
  const proc = ep.spawn(
    "salvage",
    RUNTIMES.node20,
    { store, out, reportsDir: ep.reportsDir, stopFile: undefined },
    { name: `${label}-node20` },
  );
  if (!(await proc.waitExit(180_000))) {
    proc.kill9();
    ep.fail(`salvage read of the ${label} store did not finish in 180 s`);
    return undefined;
  }
  if (!existsSync(out)) {
    ep.fail(`salvage read of the ${label} store wrote nothing: ${JSON.stringify(proc.events().at(-1))}`);
    return undefined;
  }
  return JSON.parse(readFileSync(out, "utf8")) as Salvage;
}

/** Steps 1–3 above; returns the numbers (undefined when a step could not run). */
export async function repairDamage(ep: Episode): Promise<DamageNumbers | undefined> {
  const before = fingerprint(ep.store);
  const damaged = await salvageRead(ep, copyStore(ep.store, join(ep.dir, "damaged-copy")), "damaged");
  if (!damaged) return undefined;

  const ledger = readLedger(ep.reportsDir);
  const inFile = new Map<string, SalvagedRow[]>();
  for (const row of damaged.messages)
    if (row.token) inFile.set(row.token, [...(inFile.get(row.token) ?? []), row]);
  const recoverable: string[] = [];
  let lost = 0;
  let tornInFile = 0;
  for (const [token, id] of ledger.acks) {
    const rows = inFile.get(token) ?? [];
    const intent = ledger.intents.get(token);
    if (rows.length === 0) lost++;
    else if (rows.length === 1 && rows[0]?.id === id && rows[0].intact && rows[0].session === intent?.session)
      recoverable.push(token);
    else tornInFile++;
  }
  const expectTokens = join(ep.dir, "recoverable.json");
  writeFileSync(expectTokens, JSON.stringify(recoverable));

  const runtime = ep.pickRuntime();
  const repairer = ep.spawn("repair", runtime, { stopFile: undefined });
  if (!(await repairer.waitExit(300_000))) {
    repairer.kill9();
    ep.fail(`repairStore on ${runtime.id} did not finish in 300 s`);
    return undefined;
  }
  const report = repairer.events().find((e) => e.t === "repaired");
  if (!report) {
    ep.fail(`repairStore on ${runtime.id} failed: ${JSON.stringify(repairer.events().at(-1))}`);
    return undefined;
  }
  ep.note(
    `repair on ${runtime.id}: strategy ${String(report.strategy)}, ${String(report.problemsBefore)} problems before, tried ${JSON.stringify(report.attempts)}, counts ${JSON.stringify(report.countsBefore)} → ${JSON.stringify(report.countsAfter)}, outcome ${String(report.outcome)}`,
  );
  if (report.strategy === null) {
    ep.fail(`repairStore found no strategy that produced a sound store: ${JSON.stringify(report.attempts)}`);
    return undefined;
  }
  checkOriginalKept(ep, before, report.outcome as string, report.original as string | null);

  const repaired = await salvageRead(ep, copyStore(ep.store, join(ep.dir, "repaired-copy")), "repaired");
  if (!repaired) return undefined;
  const repairedById = new Map(repaired.messages.map((r) => [r.id, r]));
  const damagedIds = new Set(damaged.messages.map((r) => r.id));
  for (const row of damaged.messages) {
    const kept = repairedById.get(row.id);
    if (!kept || kept.sha !== row.sha || kept.session !== row.session || kept.role !== row.role)
      ep.fail(
        `repair lost message ${row.id} (${row.token ?? "no token"}) that the damaged file still held: ${kept ? "stored differently" : "absent"}`,
      );
  }
  let repairExtra = 0;
  for (const row of repaired.messages) {
    if (damagedIds.has(row.id)) continue;
    repairExtra++;
    if (row.intact !== true)
      ep.fail(
        `the repaired store holds message ${row.id}, which neither the damaged file nor any writer's append explains`,
      );
  }
  const sessions = new Set(repaired.sessions);
  for (const id of damaged.sessions)
    if (!sessions.has(id)) ep.fail(`repair lost session ${id} that the damaged file still held`);
  if (repaired.integrity.length > 0 || Object.values(repaired.fts).some((v) => v !== "ok"))
    ep.fail(
      `the repaired store is not sound: ${JSON.stringify({ integrity: repaired.integrity.slice(0, 5), fts: repaired.fts })}`,
    );

  const verdict = await ep.check({ label: "repaired", expectTokens, observe: true, expectFts: ["ready"] });
  const kept = new Map<string, number>();
  for (const p of verdict.problems) {
    if (REPAIR_GUARANTEES.has(p.kind)) ep.fail(`repaired store: ${p.kind}: ${p.detail}`);
    else kept.set(p.kind, (kept.get(p.kind) ?? 0) + 1);
  }
  if (kept.size > 0)
    ep.note(
      `damage the repaired store keeps (recorded): ${[...kept].map(([k, n]) => `${n}× ${k}`).join(", ")}`,
    );

  return {
    acked: ledger.acks.size,
    lost,
    recoverable: recoverable.length,
    tornInFile,
    integrityProblems: damaged.integrity.length,
    ftsBroken: Object.values(damaged.fts).filter((v) => v !== "ok").length,
    rowsInFile: damaged.messages.length,
    unreadableIds: damaged.unreadable,
    strategy: String(report.strategy),
    repairedRows: repaired.messages.length,
    repairExtra,
  };
}

/** The damaged original was never modified: kept byte for byte (swapped), or untouched. */
function checkOriginalKept(
  ep: Episode,
  before: Map<string, string>,
  outcome: string,
  original: string | null,
): void {
  if (outcome === "swapped") {
    if (!original || !existsSync(original)) {
      ep.fail(`repair swapped the store but kept no original (${String(original)})`);
      return;
    }
    if ((statSync(original).mode & 0o777) !== 0o600)
      ep.fail(
        `the kept original ${original} has mode ${(statSync(original).mode & 0o777).toString(8)}, not 600`,
      );
    for (const [suffix, print] of before) {
      const kept = `${original}${suffix}`;
      if (!existsSync(kept)) ep.fail(`the damaged store's ${suffix || "database"} was not kept as ${kept}`);
      else if (sha256(kept) !== print)
        ep.fail(`repair modified the damaged original: ${kept} differs from it`);
    }
    return;
  }
  if (outcome !== "unchanged")
    ep.fail(`repair reported outcome ${outcome} without being asked to write elsewhere`);
  const after = fingerprint(ep.store);
  for (const [suffix, print] of before)
    if (after.get(suffix) !== print)
      ep.fail(`repair found nothing to repair, yet ${ep.store}${suffix} changed`);
}
