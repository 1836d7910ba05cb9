/**
 * The episodes of spec §11. Each one sets up roles on a seeded mix of runtimes, does something
 * nasty at seeded moments, stops what is left, and runs the checker; `runEpisode` adds the
 * harness-side invariants. Durations scale with SESSIONDB_CHAMBER_SOAK.
 */

import { spawnSync } from "node:child_process";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { checkBackups, startBackups } from "./backups.js";
import { repairDamage } from "./damage.js";
import { type Arm, Episode, SOAK, sleep } from "./episode.js";
import { checkAdmission, checkProcesses, type ProcessCheckOptions } from "./invariants.js";
import type { RoleProcess } from "./role-process.js";
import { availableRuntimes, RUNTIMES } from "./runtimes.js";
import { episodeSeed } from "./seed.js";

type Body = (ep: Episode) => Promise<ProcessCheckOptions | void>;

const ms = (n: number) => Math.round(n * SOAK);

async function ready(...roles: RoleProcess[]): Promise<void> {
  await Promise.all(roles.map((r) => r.waitFor((ev) => ev.some((e) => e.t === "ready"), 60_000, "ready")));
}

/** Writers on `n` mixed runtimes; the first creates the store, the rest race it. */
async function writers(ep: Episode, n: number, params: Record<string, unknown> = {}): Promise<RoleProcess[]> {
  const started = ep.pickRuntimes(n).map((rt) => ep.spawn("writer", rt, { pace: 10, ...params }));
  await ready(...started);
  return started;
}

function reader(ep: Episode, params: Record<string, unknown> = {}): RoleProcess {
  return ep.spawn("reader", ep.pickRuntime(), { searchPaths: ep.writerReports(), ...params });
}

/** Fill the store fast (one tight-looping writer per runtime) up to about `ops` appends each. */
async function seedStore(ep: Episode, ops: number, runtimes = 2): Promise<void> {
  const seeders = ep.pickRuntimes(runtimes).map((rt) =>
    ep.spawn("writer", rt, {
      pace: 0,
      maxOps: ops,
      batchRatio: 0.8,
      maxBatch: 8,
      longToolRatio: 0.6,
      stopFile: undefined,
    }),
  );
  await Promise.all(seeders.map((s) => s.waitExit(300_000)));
}

/** The last event of a writer says whether it is inside an append right now. */
function inFlight(w: RoleProcess): boolean {
  const last = w.events().at(-1);
  return last?.t === "intent";
}

const EPISODES: Record<string, Body> = {
  /** Writers, a reader, a churner and openers on mixed runtimes; a clean stop. */
  async baseline(ep) {
    await writers(ep, 2);
    reader(ep);
    ep.spawn("churn", ep.pickRuntime());
    for (let i = 0; i < 3; i++) {
      await sleep(ms(700));
      ep.spawn("opener", ep.pickRuntime());
    }
    await sleep(ms(2000));
    await ep.stopAll();
    await ep.check();
  },

  /**
   * kill -9 writers in the middle of appends (and a churner); replacements on other runtimes.
   * Backups are taken throughout the storm; each must restore to a sound store.
   */
  async "kill9-writer"(ep) {
    const live = await writers(ep, 3, { pace: 0 });
    const churners = [ep.spawn("churn", ep.pickRuntime()), ep.spawn("churn", ep.pickRuntime())];
    reader(ep);
    startBackups(ep, { count: 2, minPace: ms(400), maxPace: ms(1000) });
    let caught = 0;
    for (let k = 0; k < 3; k++) {
      await sleep(ep.rng.int(ms(400), ms(1200)));
      const victim = ep.rng.pick(live.filter((w) => w.alive));
      // Poll briefly for a moment when the victim is inside an append, then kill it there.
      const until = Date.now() + 500;
      while (!inFlight(victim) && Date.now() < until) await sleep(1);
      if (inFlight(victim)) caught++;
      victim.kill9();
      await victim.exited;
      const replacement = ep.spawn("writer", ep.pickRuntime([victim.runtime.id]), { pace: 0 });
      live.push(replacement);
      if (k === 1) churners[0]?.kill9();
    }
    ep.note(`${caught}/3 writers were killed with an append in flight`);
    await sleep(ms(800));
    await ep.stopAll();
    await ep.check();
    await checkBackups(ep);
  },

  /**
   * kill -9 writers that asked for `durability: "normal"` (synchronous=NORMAL: no fsync per
   * commit), each caught inside an append where it can be, one writer per runtime: nothing
   * acknowledged may be lost, as only an OS crash or power loss can take back an unsynced WAL
   * commit. Each open must report the durability its mode allows (NORMAL in WAL, FULL in DELETE).
   */
  async "kill9-normal"(ep) {
    const normal = { pace: 0, durability: "normal" };
    const live = await writers(ep, availableRuntimes().length, normal);
    const victims = [...live];
    let caught = 0;
    for (const victim of victims) {
      await sleep(ep.rng.int(ms(300), ms(800)));
      const until = Date.now() + 500;
      while (!inFlight(victim) && Date.now() < until) await sleep(1);
      if (inFlight(victim)) caught++;
      victim.kill9();
      await victim.exited;
      live.push(ep.spawn("writer", ep.pickRuntime([victim.runtime.id]), normal));
    }
    ep.note(`${caught}/${victims.length} writers were killed with an append in flight`);
    await sleep(ms(500));
    await ep.stopAll();
    checkDurability(ep, "normal");
    await ep.check();
  },

  /** SIGTERM every writer while openers and churners keep going: graceful close, nothing in flight. */
  async sigterm(ep) {
    const ws = await writers(ep, 3, { pace: 3 });
    ep.spawn("churn", ep.pickRuntime());
    ep.spawn("churn", ep.pickRuntime());
    let opening = true;
    const openers = (async () => {
      while (opening) {
        ep.spawn("opener", ep.pickRuntime());
        await sleep(ep.rng.int(150, 400));
      }
    })();
    await sleep(ep.rng.int(ms(1500), ms(3000)));
    for (const w of ws) w.term();
    const exits = await Promise.all(ws.map((w) => w.waitExit(20_000)));
    ws.forEach((w, i) => {
      if (!exits[i]) ep.fail(`${w.name} (${w.runtime.id}) did not exit within 20 s of SIGTERM`);
    });
    await sleep(ms(600));
    opening = false;
    await openers;
    await ep.stopAll();
    const verdict = await ep.check();
    if (verdict.stats.inflight !== 0)
      ep.fail(`graceful close left ${String(verdict.stats.inflight)} append(s) in flight`);
  },

  /**
   * Two rebuilders on different runtimes, a third killed while it holds the admission lock;
   * backups taken while the index is being rebuilt must restore to a sound store.
   */
  async "rebuild-race"(ep) {
    await seedStore(ep, 120);
    const [rtA, rtB, rtC] = ep.pickRuntimes(3);
    await writers(ep, 1, { pace: 20 });
    reader(ep);
    startBackups(ep, { count: 2, minPace: 0, maxPace: ms(300) });
    ep.monitor.watchLocks();
    const victim = ep.spawn("fts", rtC!, { iterations: 3 });
    await victim.waitFor((ev) => ev.some((e) => e.t === "rebuild_call"), 60_000, "rebuild_call");
    const a = ep.spawn("fts", rtA!, { iterations: 2 });
    const b = ep.spawn("fts", rtB!, { iterations: 2 });
    // Kill the victim while the kernel shows it holding the admission lock (mid-rebuild).
    const until = Date.now() + 5000;
    let holding = false;
    while (Date.now() < until && victim.alive) {
      if (ep.monitor.lockHolders.at(-1)?.pids.includes(victim.pid)) {
        holding = true;
        await sleep(ep.rng.int(0, 30));
        break;
      }
      await sleep(2);
    }
    victim.kill9();
    ep.note(
      holding
        ? "the third rebuilder was killed holding the admission lock"
        : "the third rebuilder was killed without being seen holding the lock",
    );
    for (const r of [a, b]) {
      const exit = await r.waitExit(180_000);
      if (!exit) ep.fail(`${r.name} did not finish its rebuilds in 180 s`);
      const rebuilt = r.events().filter((e) => e.t === "rebuild_return" && e.rebuilt === true).length;
      if (rebuilt === 0)
        ep.fail(
          `${r.name} (${r.runtime.id}) never got to rebuild: ${JSON.stringify(r.events().filter((e) => e.t === "rebuild_return"))}`,
        );
    }
    await ep.stopAll();
    checkAdmission(ep);
    const slow = ep.roles
      .filter((r) => r.role === "fts")
      .flatMap((r) =>
        r
          .events()
          .filter((e) => e.t === "rebuild_return")
          .map((e) => Number(e.ms)),
      );
    ep.note(`rebuild call durations (ms): ${slow.join(", ")}`);
    await ep.check({ expectFts: ["ready"] });
    await checkBackups(ep);
  },

  /**
   * A backfill killed mid-run — several times, each time resumed by another runtime — checked
   * while pending, then finished. Steps run back to back, so a kill usually lands inside a step
   * (indexing, or the commit that records progress).
   */
  async "backfill-resume"(ep) {
    await seedStore(ep, 80);
    await writers(ep, 1, { pace: 15 });
    reader(ep);
    let previous = ep.pickRuntime();
    let start = true;
    const kills = ep.rng.int(3, 5);
    for (let k = 0; k < kills; k++) {
      // Small chunks and a short pause between them: the kills come by time, and the pending
      // work must outlast all of them (chunks of 20 rows with no pause, ~3 ms a step, finished
      // a ~700-row store before the last kill in 3 of 4 runs on a loaded machine).
      const runner = ep.spawn("backfill", previous, { start, chunkRows: 8, pace: 3 });
      const events = await runner.waitFor(
        (ev) => ev.some((e) => e.t === "step" || e.t === "done"),
        60_000,
        "its first step",
      );
      if (!start && !events.some((e) => e.t === "resumed"))
        ep.fail(
          `${runner.name} did not find the backfill pending: ${JSON.stringify(events.find((e) => e.t === "ready"))}`,
        );
      start = false;
      await sleep(ep.rng.int(0, 40));
      runner.kill9();
      await runner.exited;
      const steps = runner.events().filter((e) => e.t === "step").length;
      ep.note(`${runner.runtime.id} killed after ${steps} steps`);
      if (runner.events().some((e) => e.t === "done"))
        ep.fail(`the backfill finished before kill ${k + 1}: seed a bigger store`);
      previous = ep.pickRuntime([previous.id]);
    }
    await ep.check({ expectFts: ["backfilling"], label: "pending", live: true });
    const last = ep.spawn("backfill", previous, { chunkRows: 40, mode: ep.rng.pick(["steps", "loop"]) });
    await last.waitExit(180_000);
    const events = last.events();
    if (!events.some((e) => e.t === "resumed"))
      ep.fail(
        `${last.name} did not find the backfill pending: ${JSON.stringify(events.find((e) => e.t === "ready"))}`,
      );
    const done = events.find((e) => e.t === "done");
    if ((done?.fts as { state?: string } | undefined)?.state !== "ready")
      ep.fail(`${last.name} ended with ${JSON.stringify(done)}`);
    await sleep(ms(500));
    await ep.stopAll();
    await ep.check({ expectFts: ["ready"], label: "final" });
  },

  /**
   * The bulk jobs next to the writers, killed mid-run. Imports (`store.importSessions`): two
   * killed on different runtimes, then one on a third runtime that runs to its end; each session
   * an importer handed over must be stored whole (record and every message) or not at all. Then
   * prunes (`store.deleteSessions` of the imported sessions): two killed, then one that deletes
   * half of what is left and runs to its end; each session a pruner set out to delete must be
   * there whole or gone whole, and gone once a pruner saw its deletion return. The writers' acknowledged appends are untouched
   * throughout. A kill waits for a step to have committed, then lands at a seeded moment: inside
   * a step, in the pause after one, or (an import) while the input is read.
   */
  async "kill9-bulk"(ep) {
    await writers(ep, 2, { pace: 5 });
    const watcher = reader(ep);
    let previous = ep.pickRuntime();
    for (let k = 0; k < 2; k++) {
      const victim = ep.spawn("importer", previous, { maxMessages: 40 });
      await victim.waitFor((ev) => ev.some((e) => e.t === "step"), 60_000, "its first step");
      await sleep(ep.rng.int(0, ms(400)));
      victim.kill9();
      await victim.exited;
      const steps = victim.events().filter((e) => e.t === "step").length;
      const acks = victim.events().filter((e) => e.t === "ack").length;
      const handed = victim.events().filter((e) => e.t === "intent").length;
      ep.note(
        `${victim.runtime.id} importer killed after ${steps} steps (${handed} sessions handed over, ${acks} acknowledged)`,
      );
      if (victim.events().some((e) => e.t === "done")) ep.fail(`${victim.name} finished before its kill`);
      previous = ep.pickRuntime([previous.id]);
    }
    const last = ep.spawn("importer", previous, { maxSessions: 40, maxMessages: 20 });
    if (!(await last.waitExit(120_000))) ep.fail(`${last.name} did not finish 40 sessions in 120 s`);
    const done = last.events().find((e) => e.t === "done");
    if (done?.imported !== 40 || done?.failed !== 0)
      ep.fail(`${last.name} ended with ${JSON.stringify(done ?? last.events().at(-1))}`);
    // The reader holds counts to never go down; from here on sessions are deleted on purpose.
    watcher.term();
    if (!(await watcher.waitExit(20_000))) ep.fail(`${watcher.name} did not exit within 20 s of SIGTERM`);
    for (let k = 0; k < 2; k++) {
      // Set out to delete every imported session: dozens of steps, so the kill lands mid-prune.
      const victim = ep.spawn("pruner", previous, { share: 1 });
      await victim.waitFor(
        (ev) => ev.some((e) => e.t === "step" || e.t === "deleted"),
        60_000,
        "its first step",
      );
      await sleep(ep.rng.int(0, 40));
      victim.kill9();
      await victim.exited;
      const steps = victim.events().filter((e) => e.t === "step").length;
      const asked = (victim.events().find((e) => e.t === "delete")?.sessions as unknown[] | undefined)
        ?.length;
      ep.note(`${victim.runtime.id} pruner killed after ${steps} steps (of ${String(asked)} sessions)`);
      if (victim.events().some((e) => e.t === "deleted")) ep.fail(`${victim.name} finished before its kill`);
      previous = ep.pickRuntime([previous.id]);
    }
    const pruner = ep.spawn("pruner", previous, { share: 0.5 });
    if (!(await pruner.waitExit(120_000))) ep.fail(`${pruner.name} did not finish in 120 s`);
    if (!pruner.events().some((e) => e.t === "deleted"))
      ep.fail(`${pruner.name} ended with ${JSON.stringify(pruner.events().at(-1))}`);
    await ep.stopAll();
    await ep.check();
  },

  /** FTS data blocks overwritten in the file under live writers; fail-open; recovery by rebuild. */
  async "fts-corrupt"(ep) {
    if (RUNTIMES.node20.unavailable) {
      ep.note(`skipped: the corruptor needs Node 20 + better-sqlite3 (${RUNTIMES.node20.unavailable})`);
      return;
    }
    await seedStore(ep, 60);
    await writers(ep, 2, { pace: 5 });
    reader(ep, { pace: 30 });
    await sleep(ms(800));
    const corruptStart = Date.now();
    // A PASSIVE checkpoint cannot move pages a reader's snapshot still needs: retry a few times
    // until some FTS block sits in the main file with no newer copy in the WAL.
    let report: Record<string, unknown> | undefined;
    let done = 0;
    for (let attempt = 0; attempt < 5 && done === 0; attempt++) {
      const corruptor = ep.spawn("corruptor", RUNTIMES.node20, {
        tables: ep.rng.chance(0.5)
          ? ["messages_fts_data", "messages_fts_trigram_data"]
          : ["messages_fts_data"],
        blocks: ep.rng.int(3, 8),
        structure: ep.rng.chance(0.5),
        stopFile: undefined,
      });
      await corruptor.waitExit(60_000);
      report = corruptor.events().find((e) => e.t === "corrupted");
      done = (report?.done as unknown[] | undefined)?.length ?? 0;
      const structural = (report?.structural as string[] | undefined) ?? [];
      if (structural.length > 0)
        ep.fail(`the corruptor damaged b-tree structure (a harness bug): ${structural.join("; ")}`);
      if (done === 0) await sleep(300);
    }
    if (done === 0) ep.fail(`the corruptor overwrote nothing in 5 attempts: ${JSON.stringify(report)}`);
    ep.note(`overwrote ${done} FTS block runs (${String(report?.skipped)} skipped)`);
    await sleep(ms(2500));
    const before = await ep.check({
      label: "corrupt",
      expectFts: ["ready", "stale", "backfilling"],
      observe: true,
      live: true,
    });
    ep.note(
      `before recovery: fts ${JSON.stringify((before.stats.fts as { state?: string })?.state)}, ${before.problems.length} problems (${[...new Set(before.problems.map((p) => p.kind))].join(", ")})`,
    );
    const fixer = ep.spawn("fts", ep.pickRuntime(), { iterations: 1 });
    await fixer.waitExit(120_000);
    const ret = fixer.events().find((e) => e.t === "rebuild_return");
    if (ret?.rebuilt !== true)
      ep.fail(`recovery rebuild did not rebuild: ${JSON.stringify(ret ?? fixer.events().at(-1))}`);
    const recovered = ret?.at ?? Date.now();
    await sleep(ms(1000));
    await ep.stopAll();
    await ep.check({ expectFts: ["ready"], label: "recovered" });
    ep.note(`corruption at +0 ms, recovery rebuild returned at +${recovered - corruptStart} ms`);
    return { searchMissGraceUntil: recovered };
  },

  /** The database file made read-only under running writers (as an unprivileged user), then restored. */
  async chmod(ep) {
    const why = chmodUnavailable();
    if (why) {
      ep.note(`skipped: ${why}`);
      return;
    }
    ep.chown(65534, 65534);
    const runAs = { user: "nobody", group: "nogroup" };
    const [rt1, rt2] = ep.pickRuntimes(2);
    const long = ep.spawn("writer", rt1!, { pace: 20 }, { runAs });
    await ready(long);
    const cli = ep.spawn("writer", rt2!, { pace: 20, reopenEvery: 2, retryMs: 50 }, { runAs });
    await ready(cli);
    ep.spawn("reader", ep.pickRuntime(), { searchPaths: ep.writerReports() }, { runAs });
    ep.tolerance = { codes: ["STORE_READONLY", "STORE_OPEN_FAILED"] };
    await sleep(ms(1000));
    const flipped = Date.now();
    chmodSync(ep.store, 0o444);
    await sleep(ms(2000));
    chmodSync(ep.store, 0o600);
    const restored = Date.now();
    await sleep(ms(2000));
    await ep.stopAll();
    const refusals = ep
      .events((r) => r.role === "writer")
      .filter((e) => (e.t === "fail" || e.t === "open_error") && e.at >= flipped && e.at <= restored + 200);
    const codes = [...new Set(refusals.map((e) => `${e.t}:${(e.error as { code?: string })?.code}`))];
    ep.note(`refusals while read-only: ${refusals.length} (${codes.join(", ")})`);
    if (refusals.length === 0)
      ep.fail("no writer saw the database become read-only (the reopening writer should have been refused)");
    const after = ep.events((r) => r.name === cli.name).filter((e) => e.t === "ack" && e.at > restored + 200);
    if (after.length === 0) ep.fail(`${cli.name} did not append again after the mode was restored`);
    await ep.check();
  },

  /**
   * Everything running — writers, reader, churner, rebuilder, backfill, backups, openers — then
   * kill -9 all. A backup killed mid-copy must have left nothing at its destination.
   */
  async "kill9-all"(ep) {
    await seedStore(ep, 30);
    await writers(ep, 3, { pace: 2 });
    reader(ep);
    const backups = startBackups(ep, { count: 3, minPace: ms(150), maxPace: ms(500) });
    ep.spawn("churn", ep.pickRuntime());
    ep.spawn("fts", ep.pickRuntime(), { iterations: 100, pace: 150 });
    ep.spawn("backfill", ep.pickRuntime(), { start: true, chunkRows: 25, pace: 20 });
    if (backups) await ready(backups);
    const until = Date.now() + ep.rng.int(ms(1500), ms(3500));
    while (Date.now() < until) {
      ep.spawn("opener", ep.pickRuntime());
      await sleep(ep.rng.int(100, 400));
    }
    // Any opener still running dies with the rest; an opener killed mid-open is fine.
    await ep.killAll();
    // In DELETE mode a killed writer leaves a hot journal that only a writable connection can
    // roll back (a read-only one cannot open past it), so recovery starts as it would in real
    // life: the next command opens the store writable. Then the read-only checks.
    const opener = ep.spawn("opener", ep.pickRuntime());
    await opener.waitExit(60_000);
    const first = await ep.check({ label: "after-kill" });
    const state = (first.stats.fts as { state?: string } | undefined)?.state;
    if (state === "backfilling") {
      const finisher = ep.spawn("backfill", ep.pickRuntime(), { chunkRows: 200 });
      await finisher.waitExit(180_000);
    }
    await ep.check({
      label: "settled",
      expectFts: ["ready"],
      minCounts: first.stats.counts as Record<string, number>,
    });
    await checkBackups(ep);
  },

  /** The stray descriptor (see strayDescriptor), a few seconds. */
  "stray-descriptor": (ep) => strayDescriptor(ep, ms(3000)),

  /** The same for 16 s, as in the report that prompted it (opt-in: SESSIONDB_EPISODE). */
  "stray-descriptor-long": (ep) => strayDescriptor(ep, ms(16_000)),
};

/** Episodes that run only when SESSIONDB_EPISODE names them. */
const OPT_IN = new Set(["stray-descriptor-long"]);

/**
 * The stray descriptor: one long-lived writer that now and then reads the store file behind
 * SQLite's back (readFileSync, or copyFileSync as a user's "backup"), through a descriptor whose
 * close drops every POSIX lock its process holds on the file; around it, CLI-like writers that
 * open and close the store for every few appends, a churner and openers. In WAL mode a closing
 * process that no longer sees the stray writer's shared lock believes it is the last one,
 * checkpoints and deletes the WAL — which the stray writer goes on appending to. This is
 * EXPECTED to damage the store: nothing about the damage is asserted, it is counted and printed.
 * Then every process is stopped and the store repaired, and repair's guarantees are asserted
 * (damage.ts).
 */
async function strayDescriptor(ep: Episode, durationMs: number): Promise<ProcessCheckOptions | undefined> {
  if (RUNTIMES.node20.unavailable) {
    ep.note(`skipped: the salvage read needs Node 20 + better-sqlite3 (${RUNTIMES.node20.unavailable})`);
    return undefined;
  }
  const [strayRt, ...others] = ep.pickRuntimes(4);
  const stray = ep.spawn("writer", strayRt!, {
    pace: 5,
    strayEvery: 6,
    strayCopyTo: join(ep.dir, "user-copy.db"),
  });
  await ready(stray);
  const clis = others
    .slice(0, 2)
    .map((rt) => ep.spawn("writer", rt, { pace: 10, reopenEvery: ep.rng.int(1, 3), retryMs: 50 }));
  ep.spawn("churn", others[2] ?? ep.pickRuntime(), { pace: 30 });
  const until = Date.now() + durationMs;
  while (Date.now() < until) {
    ep.spawn("opener", ep.pickRuntime());
    await sleep(ep.rng.int(200, 600));
  }
  await ep.stopAll(20_000, "note");
  const writes = ep.events((r) => r.role === "writer");
  const strayReads = stray.events().filter((e) => e.t === "stray_read").length;
  if (strayReads === 0) ep.fail(`${stray.name} never read the store behind SQLite's back`);
  const deleted = new Set(ep.monitor.deleted.map((d) => `${d.pid}:${d.target}`));
  const numbers = await repairDamage(ep);
  if (numbers) {
    const line = [
      `seed=${ep.master} episodeSeed=${ep.seed} arm=${ep.arm} ${(durationMs / 1000).toFixed(0)} s`,
      `stray writer ${stray.runtime.id} (${strayReads} stray reads) + ${clis.map((c) => c.runtime.id).join("+")}`,
      `appends acked ${numbers.acked} (${writes.filter((e) => e.t === "fail").length} refused)`,
      `acked but lost ${numbers.lost}, acked but altered ${numbers.tornInFile}, recoverable ${numbers.recoverable}`,
      `integrity_check problems ${numbers.integrityProblems}${numbers.integrityProblems >= 200 ? "+" : ""}, FTS indexes failing integrity-check ${numbers.ftsBroken}/2`,
      `deleted store files held open ${deleted.size}`,
      `file held ${numbers.rowsInFile} rows (${numbers.unreadableIds} ids unreadable)`,
      `repair: ${numbers.strategy}, ${numbers.repairedRows} rows (${numbers.repairExtra} beyond the salvage read)`,
    ].join("; ");
    console.log(`[chamber] stray-descriptor numbers: ${line}`);
    ep.note(line);
  }
  return { expectDamage: true };
}

/** Every writer open reported the durability its journal mode gives `asked`: "normal" only in WAL
 * mode, else "full"; and the WAL arm's writers did commit with it (else the episode proved
 * nothing about it). */
function checkDurability(ep: Episode, asked: "normal"): void {
  let relaxed = 0;
  for (const role of ep.roles.filter((r) => r.role === "writer")) {
    for (const e of role.events().filter((e) => e.t === "ready")) {
      const expected = e.journalMode === "wal" ? asked : "full";
      if (e.durability !== expected)
        ep.fail(
          `${role.name} (${role.runtime.id}) opened in ${String(e.journalMode)} mode with durability ${String(e.durability)}; expected ${expected}`,
        );
      if (e.durability === asked) relaxed++;
    }
  }
  if (ep.arm === "wal" && relaxed === 0) ep.fail(`no writer committed with durability ${asked}`);
  ep.note(`${relaxed} writer opens committed with durability ${asked}`);
}

/** Why the chmod episode cannot run here, if it cannot. */
function chmodUnavailable(): string | undefined {
  if (process.getuid?.() !== 0)
    return "needs root to run roles as another user (non-root runs can chmod their own files, but this harness flips as root)";
  if (spawnSync("setpriv", ["--version"]).status !== 0) return "setpriv is not installed (util-linux)";
  if (spawnSync("id", ["nobody"]).status !== 0) return "no 'nobody' user";
  return undefined;
}

export const EPISODE_NAMES = Object.keys(EPISODES);

/** What a run without SESSIONDB_EPISODE runs. */
export const DEFAULT_EPISODES = EPISODE_NAMES.filter((name) => !OPT_IN.has(name));

export interface EpisodeResult {
  failures: string[];
  notes: string[];
  dir: string;
  ms: number;
  runtimes: string[];
}

/** Run one episode in one arm; failures carry the seed. The directory is kept when it fails. */
export async function runEpisode(name: string, arm: Arm, master: number): Promise<EpisodeResult> {
  const body = EPISODES[name];
  if (!body) throw new Error(`unknown episode ${name}; known: ${EPISODE_NAMES.join(", ")}`);
  if (availableRuntimes().length === 0)
    throw new Error("no runtime available: build the packages first (npm run build)");
  const ep = new Episode(name, arm, master, episodeSeed(master, arm, name));
  const started = Date.now();
  ep.monitor.start();
  let options: ProcessCheckOptions | undefined;
  try {
    options = (await body(ep)) ?? undefined;
  } catch (error) {
    ep.fail(`episode aborted: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    ep.monitor.sampleFds();
    ep.monitor.stop();
    await ep.killAll();
  }
  checkProcesses(ep, options ?? {});
  const keep = ep.failures.length > 0 || process.env.SESSIONDB_CHAMBER_KEEP === "1";
  if (ep.failures.length > 0) {
    ep.failures.push(
      `${ep.tag} replay: SESSIONDB_SEED=${master} SESSIONDB_EPISODE=${name} SESSIONDB_ARM=${arm} npm run chamber -w @sessiondb/e2e — kept ${ep.dir} (reports/, logs/, *.verdict.json)`,
    );
  }
  const runtimes = [...new Set(ep.roles.map((r) => r.runtime.id))];
  await ep.cleanup(keep);
  return { failures: ep.failures, notes: ep.notes, dir: ep.dir, ms: Date.now() - started, runtimes };
}
