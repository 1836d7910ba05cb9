/**
 * The model checker's second mode: two writer processes interleave appends on one store (each to
 * a session of its own and both to a shared one) and are killed with SIGKILL at random points,
 * then started again from the top of their plans, round after round. After every round the store
 * must hold, for each writer, exactly the messages of a prefix of its plan's steps — at least every
 * step its ledger acknowledged, with the ids the ledger says — and read back as the model of that
 * prefix says (rows, counters, usage, last activity); at the end, the whole plans. Every message
 * has an externalId, so a step run again after a kill stores nothing twice.
 *
 * The seed is SESSIONDB_SEED when set, else the time; it is printed either way.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Random, VOCABULARY } from "../../conformance/src/model-ops.js";
import * as model from "../../conformance/src/model-state.js";
import { messageView, sessionView } from "../../conformance/src/model-writes.js";
import { openStore } from "../src/index.js";
import { availableDriverNames } from "./drivers-here.js";

const WRITER = new URL("./fixtures/plan-writer.mjs", import.meta.url).pathname;
const WRITERS = ["w1", "w2"] as const;
const STEPS = 40;
const ROUNDS = 6;
const STARTED_AT = 1000;

interface Step {
  sessionId: string;
  messages: model.AppendInput[];
}

const sessionsOf = (writer: string) => [`own-${writer}`, "shared"];
const SESSIONS = [...new Set(WRITERS.flatMap(sessionsOf))];

/** A writer's plan: steps of one to four messages, each with an externalId of the writer's (now
 * and then one of its earlier ones again: stored nothing), some with usage, some inactive. */
function plan(r: Random, writer: string): Step[] {
  let next = 0;
  return Array.from({ length: STEPS }, () => ({
    sessionId: r.pick(sessionsOf(writer)),
    messages: Array.from({ length: 1 + r.int(4) }, () => {
      const k = next > 0 && r.chance(0.1) ? r.int(next) : next++;
      return {
        role: r.pick(["user", "assistant"] as const),
        content: Array.from({ length: 1 + r.int(5) }, () => r.pick(VOCABULARY)).join(" "),
        toolName: null,
        toolCallId: null,
        toolCalls: r.chance(0.2) ? [{ id: `${writer}-call` }] : null,
        timestamp: STARTED_AT + r.int(500),
        active: !r.chance(0.1),
        externalId: `${writer}-${k}`,
        original: r.chance(0.3) ? { format: "plan", value: { writer, k } } : null,
        usage: r.chance(0.3)
          ? { model: "m1", inputTokens: r.int(100), outputTokens: r.int(10), costUsd: r.int(4) * 0.25 }
          : null,
        bad: false,
      };
    }),
  }));
}

/** The acks in a writer's ledger, over every round: step → the ids that call answered. */
function acks(ledger: string): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const line of readFileSync(ledger, "utf8").split("\n")) {
    const [kind, step, ids] = line.split(" ");
    if (kind === "ack") out.set(Number(step), (ids ?? "").split(",").map(Number));
  }
  return out;
}

const gone = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });

async function waitFor(condition: () => boolean, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition() && child.exitCode === null) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const withoutId = ({ id: _, ...rest }: { id: number }) => rest;

/** Check the store against the model: which prefix of each plan it holds, and that it reads
 * back as the model of those prefixes. Returns the prefix lengths (steps). */
function check(
  db: string,
  driver: string,
  plans: Map<string, Step[]>,
  ledgers: Map<string, string>,
): Map<string, number> {
  const store = openStore(db, { driver });
  try {
    const state = model.emptyState();
    for (const sid of SESSIONS)
      model.createSession(state, { id: sid, source: "plan", title: null, parentSessionId: null }, STARTED_AT);
    const held = new Map<string, number>();
    const stored = SESSIONS.flatMap((sid) => store.getMessages(sid, { includeInactive: true }));
    const key = (sid: string, externalId: string | null) => `${sid} ${externalId}`;
    const ids = new Map(stored.map((m) => [key(m.sessionId, m.externalId), m.id]));
    for (const writer of WRITERS) {
      const steps = plans.get(writer) as Step[];
      const have = new Set(
        stored
          .filter((m) => m.externalId?.startsWith(`${writer}-`))
          .map((m) => key(m.sessionId, m.externalId)),
      );
      // The prefix: the steps whose messages are all stored; none after it may be there at all.
      let prefix = 0;
      while (
        prefix < steps.length &&
        steps[prefix]?.messages.every((m) => have.has(key(steps[prefix]?.sessionId as string, m.externalId)))
      )
        prefix++;
      const planned = new Set(
        steps.slice(0, prefix).flatMap((s) => s.messages.map((m) => key(s.sessionId, m.externalId))),
      );
      expect(
        [...have].filter((id) => !planned.has(id)),
        `${writer}: rows past its prefix of ${prefix} steps (a torn step)`,
      ).toEqual([]);
      const acked = acks(ledgers.get(writer) as string);
      for (const [n, answered] of acked) {
        expect(n < prefix, `${writer}: step ${n} was acknowledged but is not stored (prefix ${prefix})`).toBe(
          true,
        );
        expect(answered, `${writer}: the ids step ${n} answered`).toEqual(
          steps[n]?.messages.map((m) => ids.get(key(steps[n]?.sessionId as string, m.externalId))),
        );
      }
      for (const step of steps.slice(0, prefix))
        model.appendMessages(state, step.sessionId, step.messages, STARTED_AT);
      held.set(writer, prefix);
    }
    for (const [sid, session] of state.sessions) {
      expect(store.getSession(sid), `getSession(${sid})`).toEqual(sessionView(state, session));
      const rows = state.messages.filter((m) => m.sessionId === sid);
      for (const writer of WRITERS) {
        const mine = (m: { externalId: string | null }) => m.externalId?.startsWith(`${writer}-`);
        const actual = store.getMessages(sid, { includeInactive: true }).filter(mine).map(withoutId);
        expect(actual, `${writer}'s messages in ${sid}`).toEqual(
          rows.filter(mine).map(messageView).map(withoutId),
        );
      }
      expect(store.getUsage(sid).map((u) => [u.callCount, u.inputTokens, u.costUsd])).toEqual(
        session.usage.map((u) => [u.callCount, u.inputTokens, u.costUsd]),
      );
    }
    const idsInOrder = stored.map((m) => m.id);
    expect(new Set(idsInOrder).size, "every stored message once").toBe(idsInOrder.length);
    expect(store.checkIntegrity()).toEqual({ ok: true, problems: [] });
    return held;
  } finally {
    store.close();
  }
}

const drivers = availableDriverNames();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One run: both plans from `seed`, ROUNDS rounds of kills, then both to their end. Returns the
 * number of kills. */
async function killRun(driver: string, seed: number): Promise<number> {
  const r = new Random(seed);
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-model-kill-"));
  dirs.push(dir);
  const db = join(dir, "state.db");
  const plans = new Map(WRITERS.map((w) => [w, plan(r, w)]));
  const ledgers = new Map(WRITERS.map((w) => [w, join(dir, `${w}.ledger`)]));
  for (const w of WRITERS) {
    const file = join(dir, `${w}.plan.json`);
    const sessions = sessionsOf(w).map((id) => ({ id, source: "plan", startedAt: STARTED_AT }));
    const steps = plans
      .get(w)
      ?.map((s) => ({ sessionId: s.sessionId, messages: s.messages.map(({ bad: _, ...m }) => m) }));
    writeFileSync(file, JSON.stringify({ sessions, steps }));
    writeFileSync(ledgers.get(w) as string, "");
  }
  // The sessions exist before any writer runs (a writer killed while it opens creates none).
  const setup = openStore(db, { driver });
  for (const id of SESSIONS) setup.createSession({ id, source: "plan", startedAt: STARTED_AT });
  setup.close();
  const start = (w: string) =>
    spawn(process.execPath, [WRITER, db, driver, join(dir, `${w}.plan.json`), ledgers.get(w) as string], {
      stdio: ["ignore", "ignore", "inherit"],
    });
  let kills = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const last = round === ROUNDS;
    await Promise.all(
      WRITERS.map(async (w) => {
        const child = start(w);
        const ledger = ledgers.get(w) as string;
        if (last) return gone(child);
        // Kill it around its frontier: up to nine steps past the last step acknowledged so far
        // (or while it opens and runs again through the steps it has done already).
        const frontier = Math.max(-1, ...acks(ledger).keys());
        const target = frontier + r.int(11) - 1;
        await waitFor(() => Math.max(-1, ...acks(ledger).keys()) >= target, child, `${w}'s step ${target}`);
        await new Promise((resolve) => setTimeout(resolve, r.int(5)));
        if (child.exitCode === null) kills++;
        child.kill("SIGKILL");
        return gone(child);
      }),
    );
    const held = check(db, driver, plans, ledgers);
    if (last) for (const w of WRITERS) expect(held.get(w), `${w} ran its whole plan`).toBe(STEPS);
  }
  return kills;
}

describe("model checker: two writers killed with SIGKILL at random points", () => {
  for (const driver of drivers) {
    it(`${driver}: the store holds each writer's acknowledged prefix, as the model says`, async () => {
      const first = process.env.SESSIONDB_SEED
        ? Number(process.env.SESSIONDB_SEED)
        : Date.now() % 1_000_000_000;
      console.log(`[model kill] ${driver}: seed ${first} (set SESSIONDB_SEED to replay)`);
      // A soak (npm run soak) runs seed after seed until its minutes or runs are used up.
      const minutes = Number(process.env.SESSIONDB_SOAK_MINUTES ?? 0);
      const runs =
        Number(process.env.SESSIONDB_SOAK_RUNS ?? 0) || (minutes > 0 ? Number.MAX_SAFE_INTEGER : 1);
      const deadline = Date.now() + minutes * 60_000;
      let kills = 0;
      let n = 0;
      for (; n < runs && (n === 0 || minutes === 0 || Date.now() < deadline); n++) {
        try {
          kills += await killRun(driver, first + n);
        } catch (error) {
          throw new Error(
            `[model kill] ${driver}: seed ${first + n} (SESSIONDB_SEED=${first + n} replays it) failed: ${String(error)}`,
            { cause: error },
          );
        }
      }
      console.log(
        `[model kill] ${driver}: seed ${first}: ${n} runs, ${n * ROUNDS} rounds, ${kills} kills, ${n * 2 * STEPS} plan steps checked`,
      );
    });
  }
});
