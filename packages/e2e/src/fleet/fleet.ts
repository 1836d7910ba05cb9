/**
 * The fleet: one store on a libSQL server, written by gateway processes on Node, Bun and Deno —
 * some through the primary, some through a replica node that forwards their writes — while a
 * rebuild and a backfill run, gateways are killed (`kill -9`), the replica node is killed and
 * restarted, and a rebuilder is killed while it holds the FTS rebuild lease.
 *
 * Then, with the chamber's ledger and checker (the same roles, opening the server's URL): every
 * acknowledged append stored exactly once with its exact body, nothing torn, no phantom rows,
 * counters equal to the rows, `checkIntegrity()` clean (FTS5 integrity-check included), a
 * sample of tokens found by search; search results identical to an embedded store built from the
 * same rows; the lease released or expired, and a later rebuild not blocked for longer than it.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type SqldServer, startSqldPair } from "@sessiondb/test-sqld";
import { Episode, sleep } from "../chamber/episode.js";
import { checkProcesses } from "../chamber/invariants.js";
import { MODULES } from "../chamber/paths.js";
import type { RoleProcess } from "../chamber/role-process.js";
import { availableRuntimes, type Runtime } from "../chamber/runtimes.js";
import { episodeSeed } from "../chamber/seed.js";
import { LEASE_MS, openRawClient, readLease } from "./lease.js";
import { buildMirror, compareSearches, type Probe } from "./mirror.js";
import { type PrimaryWatchdog, watchPrimary } from "./watchdog.js";

/**
 * Refusals a gateway may see, all typed: the store busy past patience (the server unreachable
 * counts as busy: nothing was sent); an open that found its node down (`STORE_OPEN_FAILED`
 * caused by `LIBSQL_UNREACHABLE`: a replacement gateway that starts while the replica node is
 * killed; nothing was sent, and the gateway opens again); and the answer to a COMMIT lost with
 * the node (`LIBSQL_COMMIT_UNKNOWN`, an extended code): the write may or may not be stored, so
 * the checker counts it as in flight.
 */
export const UNCERTAIN_CODES = ["LIBSQL_COMMIT_UNKNOWN"];
const TOLERATED_CODES = ["STORE_BUSY", "LIBSQL_UNREACHABLE", ...UNCERTAIN_CODES];

export interface FleetResult {
  failures: string[];
  notes: string[];
  dir: string;
  ms: number;
  runtimes: string[];
}

/** Which node a gateway talks to, and over which protocol. */
type Route = { node: "primary" | "replica"; protocol: "http" | "ws" };
const ROUTES: Route[] = [
  { node: "primary", protocol: "http" },
  { node: "replica", protocol: "ws" },
  { node: "primary", protocol: "ws" },
  { node: "replica", protocol: "http" },
];

function urlOf(nodes: { primary: SqldServer; replica: SqldServer }, route: Route): string {
  const node = nodes[route.node];
  return route.protocol === "http" ? node.httpUrl : node.wsUrl;
}

async function ready(...roles: RoleProcess[]): Promise<void> {
  await Promise.all(roles.map((r) => r.waitFor((ev) => ev.some((e) => e.t === "ready"), 60_000, "ready")));
}

/** The last event of a writer says whether it is inside an append right now. */
const inFlight = (w: RoleProcess) => w.events().at(-1)?.t === "intent";

export async function runFleet(master: number): Promise<FleetResult> {
  const ep = new Episode("fleet", "server", master, episodeSeed(master, "server", "fleet"));
  ep.tolerance = { codes: TOLERATED_CODES };
  const started = Date.now();
  const { primary, replica, stop } = await startSqldPair();
  const nodes = { primary, replica };
  const raw = openRawClient(primary.httpUrl);
  const watchdog = watchPrimary(primary, ep);
  try {
    await episode(ep, nodes, raw, watchdog);
  } catch (error) {
    ep.fail(`episode aborted: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await watchdog.stop();
    await ep.killAll();
    raw.close();
  }
  // Around a restart by the watchdog: an open that began while the primary was stuck can spend
  // its whole patience (20 s, as long as the watchdog waits) without an answer
  // (STORE_OPEN_FAILED caused by LIBSQL_CONNECTION_LOST), and the restarted primary answers HTTP
  // 500 while it recovers its replication log (LIBSQL_SERVER_ERROR). Both are typed; the gateway
  // opens again.
  if (watchdog.restarts > 0)
    ep.tolerance = { codes: [...TOLERATED_CODES, "LIBSQL_CONNECTION_LOST", "LIBSQL_SERVER_ERROR"] };
  checkProcesses(ep, {});
  const keep = ep.failures.length > 0 || process.env.SESSIONDB_CHAMBER_KEEP === "1";
  if (ep.failures.length > 0) {
    ep.failures.push(
      `${ep.tag} replay: SESSIONDB_SEED=${master} npx vitest run src/fleet.test.ts (in packages/e2e) — kept ${ep.dir} (reports/, logs/, *.verdict.json); sqld logs: primary ${primary.log().slice(-600)} replica ${replica.log().slice(-600)}`,
    );
  }
  await stop();
  const runtimes = [...new Set(ep.roles.map((r) => r.runtime.id))];
  await ep.cleanup(keep);
  return { failures: ep.failures, notes: ep.notes, dir: ep.dir, ms: Date.now() - started, runtimes };
}

async function episode(
  ep: Episode,
  nodes: { primary: SqldServer; replica: SqldServer },
  raw: ReturnType<typeof openRawClient>,
  watchdog: PrimaryWatchdog,
): Promise<void> {
  const primaryUrl = nodes.primary.httpUrl;
  const spawn = (role: string, runtime: Runtime, url: string, params: Record<string, unknown> = {}) =>
    ep.spawn(role, runtime, { url, ...params });
  // ~20 appends a second each: enough to be inside an append when killed, few enough that the
  // checks read everything back through the server in seconds.
  const gatewayParams = { pace: 60, retryMs: 100, maxToolChars: 12_000 };

  // Gateways on every runtime there is, each on one route (primary or replica, HTTP or WebSocket).
  const runtimes = ep.pickRuntimes(Math.max(4, availableRuntimes().length));
  const gateways = runtimes.map((rt, i) => {
    const route = ROUTES[i % ROUTES.length] as Route;
    return { route, proc: spawn("writer", rt, urlOf(nodes, route), gatewayParams) };
  });
  await ready(...gateways.map((g) => g.proc));
  ep.note(
    `gateways: ${gateways.map((g) => `${g.proc.runtime.id}→${g.route.node}/${g.route.protocol}`).join(", ")}`,
  );

  // A rebuild and a backfill through the primary while the gateways write.
  const rebuilder = spawn("fts", ep.pickRuntime(), primaryUrl, { iterations: 2, pace: 300 });
  await sleep(ep.rng.int(400, 900));
  const backfill = spawn("backfill", ep.pickRuntime(), primaryUrl, {
    start: true,
    chunkRows: 16,
    pace: 20,
    mode: "steps",
  });

  // kill -9 a gateway inside an append; its replacement takes the same route on another runtime.
  const killGateway = async (): Promise<void> => {
    const live = gateways.filter((g) => g.proc.alive);
    const victim = ep.rng.pick(live);
    const until = Date.now() + 500;
    while (!inFlight(victim.proc) && Date.now() < until) await sleep(1);
    ep.note(`${victim.proc.name} killed ${inFlight(victim.proc) ? "inside" : "between"} appends`);
    victim.proc.kill9();
    await victim.proc.exited;
    const replacement = spawn(
      "writer",
      ep.pickRuntime([victim.proc.runtime.id]),
      urlOf(nodes, victim.route),
      gatewayParams,
    );
    gateways.push({ route: victim.route, proc: replacement });
  };
  await sleep(ep.rng.int(800, 1500));
  await killGateway();

  // kill -9 the replica node; its gateways see it gone, then it restarts on its data.
  await sleep(ep.rng.int(500, 1000));
  await nodes.replica.kill();
  await sleep(ep.rng.int(800, 1500));
  await nodes.replica.restart();
  ep.note("the replica node was killed (-9) and restarted");

  // A rebuilder killed while it holds the lease; a later rebuild must get it within the lease.
  const victim = spawn("fts", ep.pickRuntime(), primaryUrl, { iterations: 1 });
  const held = await waitForLease(raw, victim, 20_000, watchdog);
  victim.kill9();
  await victim.exited;
  ep.note(
    held ? `${victim.name} was killed holding the lease` : `${victim.name} was never seen holding the lease`,
  );
  if (!held) ep.fail(`${victim.name} (${victim.runtime.id}) never held the lease within 20 s`);
  const killedAt = Date.now();
  const stalledBefore = watchdog.stalledMs;
  const successor = spawn("fts", ep.pickRuntime([victim.runtime.id]), primaryUrl, {
    iterations: 1,
    timeoutMs: LEASE_MS * 4,
  });
  await killGateway();

  // The gateways stop gracefully (SIGTERM: each closes its store with nothing in flight) while
  // the successor waits out the dead holder's lease.
  await sleep(ep.rng.int(1500, 3000));
  const live = gateways.filter((g) => g.proc.alive).map((g) => g.proc);
  // A replacement started a moment ago may still be loading (Deno under a loaded CI took over
  // 3 s): a SIGTERM before it listens for one kills it with nothing to show, not a close.
  await ready(...live);
  for (const g of live) g.term();
  for (const g of live) {
    // A close waits for the call in flight: on a primary that stalled meanwhile, until it is
    // restarted.
    const stalled = watchdog.stalledMs;
    const exited =
      (await g.waitExit(20_000)) ??
      (watchdog.stalling || watchdog.stalledMs > stalled ? await g.waitExit(30_000) : undefined);
    if (!exited) ep.fail(`${g.name} (${g.runtime.id}) did not exit within 20 s of SIGTERM`);
  }

  const exit = await successor.waitExit(LEASE_MS * 4 + 30_000);
  const rebuilt = successor.events().find((e) => e.t === "rebuild_return");
  if (!exit || rebuilt?.rebuilt !== true)
    ep.fail(`${successor.name} did not rebuild after the lease holder died: ${JSON.stringify(rebuilt)}`);
  else if (Number(rebuilt.at) - killedAt > LEASE_MS + 15_000 + (watchdog.stalledMs - stalledBefore))
    ep.fail(
      `${successor.name} waited ${Number(rebuilt.at) - killedAt} ms after the holder died; the lease is ${LEASE_MS} ms`,
    );

  const refusals = new Map<string, number>();
  for (const e of ep.events((r) => r.role === "writer"))
    if (e.t === "fail" || e.t === "open_error") {
      const error = e.error as { code?: string; extendedCode?: string } | undefined;
      const key = `${e.t}:${error?.extendedCode ?? error?.code}`;
      refusals.set(key, (refusals.get(key) ?? 0) + 1);
    }
  const acks = ep.events((r) => r.role === "writer").filter((e) => e.t === "ack").length;
  ep.note(`${acks} appends acknowledged; refusals ${JSON.stringify(Object.fromEntries(refusals))}`);

  for (const r of [rebuilder, backfill]) {
    if (!(await r.waitExit(120_000))) ep.fail(`${r.name} did not finish in 120 s`);
  }
  await ep.stopAll();

  // The store, through the server: the chamber's checker, every acknowledged append required.
  await ep.check({
    expectFts: ["ready"],
    searchSample: 40,
    params: { url: primaryUrl, uncertainCodes: UNCERTAIN_CODES },
  });
  await checkLease(ep, raw);
  await checkSearchesAgainstEmbedded(ep, primaryUrl);
}

/** Poll the lease row until `proc` holds it (true), or it exits or time runs out (false); time
 * the primary spends stalled does not count. */
async function waitForLease(
  raw: ReturnType<typeof openRawClient>,
  proc: RoleProcess,
  timeoutMs: number,
  watchdog: PrimaryWatchdog,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  const stalledBefore = watchdog.stalledMs;
  const inTime = () => Date.now() < until + (watchdog.stalledMs - stalledBefore) || watchdog.stalling;
  while (inTime() && proc.alive) {
    // The primary may be restarting (the watchdog): a failed read is no answer yet.
    const lease = await readLease(raw).catch(() => undefined);
    if (lease && lease.holderPid === proc.pid && lease.expiresAt > lease.serverNow) return true;
    await sleep(5);
  }
  return false;
}

/** After the episode the lease is released (no row) or expired. */
async function checkLease(ep: Episode, raw: ReturnType<typeof openRawClient>): Promise<void> {
  const lease = await readLease(raw);
  if (lease && lease.expiresAt > lease.serverNow)
    ep.fail(`the FTS rebuild lease is still held after every role stopped: ${lease.raw}`);
  else ep.note(lease ? "the lease row is left, expired" : "the lease is released (no row)");
}

/** Search results through the server equal those of an embedded store built from its rows. */
async function checkSearchesAgainstEmbedded(ep: Episode, url: string): Promise<void> {
  const [server, embedded] = await Promise.all([
    import(pathToFileURL(join(MODULES, "@sessiondb", "libsql", "dist", "index.js")).href),
    import(pathToFileURL(join(MODULES, "@sessiondb", "node", "dist", "index.js")).href),
  ]);
  const remote = await server.openStore(url, { readOnly: true });
  const local = embedded.openStore(join(ep.dir, "embedded.db"));
  try {
    const mirror = await buildMirror(remote, local);
    const ledger = (await import("../roles/lib/ledger.mjs")).readLedger(ep.reportsDir);
    const tokens = [...ledger.acks.keys()];
    const probes: Probe[] = [
      { query: "agent", options: { limit: 50 } },
      { query: "journal commit", options: { limit: 50, sort: "newest" } },
      { query: '"cache lock"', options: { limit: 50 } },
      { query: "数据库", options: { limit: 50 } },
      { query: "ursor", options: { substring: true, limit: 50 } },
      { query: "buffer", options: { roles: ["tool"], limit: 50 } },
    ];
    for (let i = 0; i < Math.min(30, tokens.length); i++) {
      const token = ep.rng.pick(tokens);
      probes.push({ query: token, options: { limit: 5 } });
      probes.push({ query: token.slice(1, -1), options: { substring: true, limit: 5 } });
    }
    const { differences, hits, routes, byEngine } = await compareSearches(remote, local, mirror, probes);
    ep.note(
      `embedded mirror: ${mirror.sessions} sessions, ${mirror.messages} messages; ${probes.length} searches, ${hits} hits, server routes ${JSON.stringify(routes)}; ${byEngine} answered by LIKE on the server where the embedded store used its trigram index (the server's SQLite 3.45.1), compared as sets of rows`,
    );
    for (const d of differences.slice(0, 10)) ep.fail(`search differs from the embedded store: ${d}`);
    if (differences.length > 10) ep.fail(`… and ${differences.length - 10} more search differences`);
  } finally {
    await remote.close();
    local.close();
  }
}
