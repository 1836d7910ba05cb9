/**
 * The harness-side invariants, checked after every episode from the roles' reports and the
 * monitor (the store-side ones are the checker role's): exits, graceful closes, the arm's
 * journal mode at every open, counts that went down, search misses, refused operations that
 * were not clean typed refusals, deleted-file descriptors, descriptor bounds.
 */
import type { Episode } from "./episode.js";
import type { RoleEvent } from "./role-process.js";

/** A reader or churner may hold the database, -wal and -shm (and a hot -journal) at most. */
const MAX_STORE_FDS = 4;
/** Descriptor growth tolerated between the churner's first and last sample (runtime noise). */
const MAX_FD_GROWTH = 8;

interface ErrorField {
  name?: string;
  code?: string;
  /** The engine's extended code (a libSQL server's), which a tolerance may name instead. */
  extendedCode?: string;
  typed?: boolean;
  message?: string;
}

export interface ProcessCheckOptions {
  /** Search misses reported before this time are notes, not failures (corruption window). */
  searchMissGraceUntil?: number;
  /** The episode damages the store on purpose: what the processes saw is recorded (counted per
   * kind in a note), not asserted. */
  expectDamage?: boolean;
}

export function checkProcesses(ep: Episode, opts: ProcessCheckOptions = {}): void {
  const recorded = new Map<string, { n: number; example: string }>();
  const fail = (kind: string, message: string): void => {
    if (!opts.expectDamage) {
      ep.fail(message);
      return;
    }
    const entry = recorded.get(kind) ?? { n: 0, example: message };
    entry.n++;
    recorded.set(kind, entry);
  };
  checkEvents(ep, opts, fail);
  if (recorded.size > 0)
    ep.note(
      `recorded, not asserted (the store was damaged on purpose): ${[...recorded]
        .map(([kind, { n, example }]) => `${n}× ${kind} (e.g. ${example.slice(0, 160)})`)
        .join("; ")}`,
    );
}

type Flag = (kind: string, message: string) => void;

function checkEvents(ep: Episode, opts: ProcessCheckOptions, fail: Flag): void {
  let misses = 0;
  const settledAt = modeSettledAt(ep);
  let racedCreations = 0;
  for (const role of ep.roles) {
    const events = role.events();
    const crash = events.find((e) => e.t === "crash");
    if (crash) fail("crash", `${role.name} crashed: ${JSON.stringify(crash.error)} (logs/${role.name}.out)`);
    if (!role.killedOnPurpose && role.exit && (role.exit.code !== 0 || role.exit.signal)) {
      fail("exit", `${role.name} exited with ${JSON.stringify(role.exit)} (logs/${role.name}.out)`);
    }
    if (role.terminated && !role.killedOnPurpose) checkGracefulClose(ep, role.name, events);
    for (const e of events) {
      const mode = e.journalMode as string | undefined;
      const isOpen = e.t === "ready" || e.t === "opened" || e.t === "first" || e.t === "wrong_mode";
      if (isOpen && mode && ep.arm !== "server" && mode !== ep.arm) {
        if (ep.arm === "wal" && mode === "delete" && Number(e.openStartedAt) < settledAt) racedCreations++;
        else
          fail(
            "journal-mode",
            `${role.name} (${role.runtime.id}) opened the store in journal mode ${mode}; the arm is ${ep.arm}`,
          );
      }
      if (e.t === "count_decreased")
        fail("count-decreased", `${role.name} saw a count go down: ${e.scope} ${e.before} → ${e.after}`);
      if (e.t === "search_miss") {
        if (opts.searchMissGraceUntil !== undefined && e.at <= opts.searchMissGraceUntil) misses++;
        else
          fail(
            "search-miss",
            `${role.name} (${role.runtime.id}) search missed: ${JSON.stringify({ token: e.token, id: e.id, role: e.messageRole, route: e.route, hits: e.hits })}`,
          );
      }
      if (e.t === "fail" || e.t === "error" || e.t === "open_error") checkRefusal(ep, role.name, e, fail);
    }
  }
  if (misses > 0)
    ep.note(`${misses} search misses inside the tolerated window (corrupt index not yet detached)`);
  if (racedCreations > 0)
    ep.note(
      `${racedCreations} opens that raced the store's creation reported DELETE (their switches to WAL met a sibling's lock; a sibling switched later)`,
    );

  for (const d of opts.expectDamage ? ep.monitor.deleted : ep.monitor.deleted.slice(0, 10)) {
    fail(
      "deleted-descriptor",
      `${d.role} (pid ${d.pid}) held descriptor ${d.fd} on a deleted store file: ${d.target}`,
    );
  }
  for (const role of ep.roles.filter((r) => r.role === "churn" || r.role === "reader")) {
    const samples = ep.monitor.fds.get(role.name) ?? [];
    const maxStore = Math.max(0, ...samples.map((s) => s.store));
    if (maxStore > MAX_STORE_FDS)
      fail(
        "descriptors",
        `${role.name} held ${maxStore} descriptors on store files at once (bound ${MAX_STORE_FDS})`,
      );
    if (role.role === "churn") checkChurnGrowth(ep, role.name, role.events(), fail);
  }
}

/**
 * When the first open that reported the arm's mode was done (Infinity if none did). In the WAL
 * arm, an open that began before then may have raced the store's creation and truthfully
 * reported DELETE; one that began after must report WAL.
 */
function modeSettledAt(ep: Episode): number {
  let at = Number.POSITIVE_INFINITY;
  for (const role of ep.roles)
    for (const e of role.events())
      if ((e.t === "ready" || e.t === "opened" || e.t === "first") && e.journalMode === ep.arm)
        at = Math.min(at, Number(e.at));
  return at;
}

function checkGracefulClose(ep: Episode, name: string, events: RoleEvent[]): void {
  const closed = events.some((e) => e.t === "closed" && e.reason === "SIGTERM");
  if (!closed) ep.fail(`${name} got SIGTERM but did not report a graceful close`);
  const intents = new Set<string>();
  for (const e of events) {
    if (e.t === "intent") for (const m of e.msgs as Array<{ token: string }>) intents.add(m.token);
    if (e.t === "ack" || e.t === "fail") for (const t of e.tokens as string[]) intents.delete(t);
  }
  if (intents.size > 0)
    ep.fail(`${name} closed on SIGTERM with ${intents.size} append(s) neither acknowledged nor refused`);
}

function checkRefusal(ep: Episode, name: string, e: RoleEvent, fail: Flag): void {
  const error = e.error as ErrorField | undefined;
  const what = `${name}: ${e.t} ${error?.name ?? "?"} ${error?.code ?? ""}: ${error?.message ?? ""}`;
  if (!error?.typed) fail("untyped-error", `untyped error (not a SessionDbError) — ${what}`);
  else if (
    !ep.tolerance.codes.includes(error.code ?? "") &&
    !ep.tolerance.codes.includes(error.extendedCode ?? "")
  )
    fail(`refusal ${error.code}`, `unexpected refusal — ${what}`);
}

/** The churner reports (iteration, descriptors) every few iterations; the count must stay flat. */
function checkChurnGrowth(ep: Episode, name: string, events: RoleEvent[], fail: Flag): void {
  const samples = events.filter(
    (e) => e.t === "fds" && typeof e.total === "number" && (e.iter as number) >= 20,
  );
  if (samples.length < 2) {
    ep.note(`${name}: too few descriptor samples to judge growth (${samples.length})`);
    return;
  }
  const first = samples[0] as RoleEvent;
  const last = samples[samples.length - 1] as RoleEvent;
  const growth = (last.total as number) - (first.total as number);
  if (growth > MAX_FD_GROWTH) {
    fail(
      "descriptors",
      `${name}: descriptors grew from ${first.total} (iteration ${first.iter}) to ${last.total} (iteration ${last.iter})`,
    );
  }
  if ((last.store as number) > 0)
    fail("descriptors", `${name}: ${last.store} store descriptors still open between iterations`);
}

/**
 * Guarantee 5 from the kernel's side: every rebuild that reported `rebuilt: true` and lasted
 * longer than a few lock samples was seen holding the admission lock during its call window.
 */
export function checkAdmission(ep: Episode): void {
  const holders = ep.monitor.lockHolders;
  for (const role of ep.roles.filter((r) => r.role === "fts")) {
    const events = role.events();
    for (const ret of events.filter((e) => e.t === "rebuild_return" && e.rebuilt === true)) {
      const call = events.find((e) => e.t === "rebuild_call" && e.i === ret.i);
      if (!call) continue;
      const window = holders.filter((h) => h.at >= call.at && h.at <= ret.at);
      if (window.length < 5) continue; // too short to have been sampled
      if (!window.some((h) => h.pids.includes(role.pid))) {
        ep.fail(
          `${role.name} (${role.runtime.id}) rebuilt the index (${ret.ms} ms, ${window.length} lock samples) without ever holding the admission lock ${ep.store}.fts-rebuild.lock`,
        );
      }
    }
  }
  const twice = holders.find((h) => new Set(h.pids).size > 1);
  if (twice) ep.fail(`two processes held the admission lock at once: pids ${twice.pids.join(", ")}`);
}
