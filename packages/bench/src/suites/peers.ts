/**
 * sessiondb beside the store a user would write by hand (peers/hand-written.ts) — issue 37's
 * comparison, kept in the bench. Every ratio is sessiondb relative to the hand-written store:
 *
 * - ingest, per durability (hand-written WAL + synchronous FULL against our default, WAL +
 *   NORMAL against `durability: "normal"`): fresh files on both sides, the same corpus messages,
 *   single appends (`appendMessage` / one autocommit INSERT) and batches of `plan.batchSize`
 *   (`appendMessages` / one transaction), taking turns like the append suite. Ratio: the
 *   hand-written mean time per call over ours, the slowest tenth left out (≥ 1: we are faster).
 *   A third side is the hand-written store with substring search (its own trigram index, as
 *   ours keeps one): what our ingest costs against a store that answers the same searches;
 * - reads, on the target's corpus copy against a hand-written store filled with the same
 *   messages: the first page of 20 hits of the median query (same snippet), every hit of it
 *   (our cursor walk against one query), the last 50 messages of a session, and the pages in use.
 *   Ratio: ours over theirs, p50 of interleaved calls (≤ 1: we are faster, smaller).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { MessageInput, Store } from "@sessiondb/core";
import { alternate } from "../alternate.js";
import type { Engine } from "../engine.js";
import { bytesInUse, copyMessages, handWrittenStore, type PeerDurability } from "../peers/hand-written.js";
import { sampleMessages } from "../raw-append.js";
import { median, now, trimmedMean } from "../stats.js";
import { BLOCK, SLOWEST_SHARE } from "./append.js";
import type { SuiteContext } from "./context.js";
import { WALK, walkHits } from "./search.js";

const SESSION = "bench-peers";
/** The median query of the search suite, as both stores are asked it. */
const QUERY = WALK.query;
const FIRST_PAGE = 20;
const RESUME = 50;
const MIB = 1024 * 1024;

function ingest(engine: Engine, ctx: SuiteContext, dir: string, durability: PeerDurability): void {
  const messages: MessageInput[] = sampleMessages(
    Math.max(ctx.plan.singles, ctx.plan.batches * ctx.plan.batchSize),
    737,
    true,
  );
  const store = engine.openStore(join(dir, `ours-${durability}.db`), { durability });
  const peer = handWrittenStore(engine.openRaw(join(dir, `hand-${durability}.db`)), durability);
  const trigram = handWrittenStore(
    engine.openRaw(join(dir, `hand-trigram-${durability}.db`)),
    durability,
    true,
  );
  try {
    // A SQLite the journal policy keeps in DELETE mode gets FULL whatever is asked: say so.
    ctx.note(`peers.${durability}.store`, `${store.journalMode}, durability ${store.durability}`);
    store.createSession({ id: SESSION, source: "bench" });
    const by = (hand: typeof peer) => (batch: MessageInput[]) =>
      batch.length === 1 ? hand.append(SESSION, batch[0] as MessageInput) : hand.appendMany(SESSION, batch);
    const sides = {
      store: (batch: MessageInput[]) =>
        void (batch.length === 1
          ? store.appendMessage(SESSION, batch[0] as MessageInput)
          : store.appendMessages(SESSION, batch)),
      peer: by(peer),
      trigram: by(trigram),
    };
    for (const [kind, count, size] of [
      ["single", ctx.plan.singles, 1],
      ["batch", ctx.plan.batches, ctx.plan.batchSize],
    ] as const) {
      const lat = alternate(sides, ["store", "peer", "trigram"], messages, count, size, BLOCK[kind]);
      const rows = (samples: number[]) => (samples.length * size * 1000) / samples.reduce((a, b) => a + b, 0);
      const over = (samples: number[]) =>
        trimmedMean(samples, SLOWEST_SHARE) / trimmedMean(lat.store, SLOWEST_SHARE);
      ctx.metric(`peers.${durability}.${kind}.store.rows`, rows(lat.store));
      ctx.metric(`peers.${durability}.${kind}.peer.rows`, rows(lat.peer));
      ctx.metric(`peers.${durability}.${kind}.ratio`, over(lat.peer));
      ctx.metric(`peers.${durability}.${kind}.trigram.rows`, rows(lat.trigram));
      ctx.metric(`peers.${durability}.${kind}.trigram.ratio`, over(lat.trigram));
    }
  } finally {
    trigram.close();
    peer.close();
    store.close();
  }
}

/** The reads, both sides taking turns (the walk in rounds, like the search suite's). On a 1M
 * store Deno's node:sqlite slows ranked queries while a second connection takes turns (see
 * search.ts); this suite runs at 1M on Node 20 only (WHOLE_STORE_SUITES). */
function reads(engine: Engine, ctx: SuiteContext, peerFile: string): void {
  const source = engine.openRaw(ctx.db);
  const filling = handWrittenStore(engine.openRaw(peerFile), "full");
  filling.close();
  const target = engine.openRaw(peerFile);
  let size = { store: Number.NaN, peer: Number.NaN };
  try {
    ctx.note("peers.rows", `${copyMessages(source, target)} messages in both stores`);
    size = { store: bytesInUse(source) / MIB, peer: bytesInUse(target) / MIB };
  } finally {
    target.close();
    source.close();
  }
  ctx.metric("peers.size.store", size.store);
  ctx.metric("peers.size.peer", size.peer);
  ctx.metric("peers.size.ratio", size.store / size.peer);

  const store = engine.openStore(ctx.db);
  const peer = handWrittenStore(engine.openRaw(peerFile), "full");
  try {
    const ours = store.search(QUERY, { limit: FIRST_PAGE });
    const theirs = peer.search(QUERY, FIRST_PAGE).length;
    ctx.note("peers.search.first", `${ours.route}, ${ours.hits.length} hits (hand-written ${theirs})`);
    // Interleaved turns of 10 calls (the machine's other load hits both sides alike); p50 each.
    const calls = Math.max(10, ctx.plan.benchIterations);
    const first = alternate(
      {
        store: () => void store.search(QUERY, { limit: FIRST_PAGE }),
        peer: () => void peer.search(QUERY, FIRST_PAGE),
      },
      ["store", "peer"],
      [0],
      calls,
      1,
      10,
    );
    const resume = alternate(
      {
        store: () => void store.getMessages(ctx.sessionId, { last: RESUME }),
        peer: () => void peer.last(ctx.sessionId, RESUME),
      },
      ["store", "peer"],
      [0],
      calls * 10,
      1,
      10,
    );
    ctx.metric("peers.search.first.store.p50", median(first.store));
    ctx.metric("peers.search.first.peer.p50", median(first.peer));
    ctx.metric("peers.search.first.ratio", median(first.store) / median(first.peer));
    ctx.metric("peers.resume.store.p50", median(resume.store));
    ctx.metric("peers.resume.peer.p50", median(resume.peer));
    ctx.metric("peers.resume.ratio", median(resume.store) / median(resume.peer));
    walk(store, peer, ctx);
  } finally {
    peer.close();
    store.close();
  }
}

function walk(store: Store, peer: ReturnType<typeof handWrittenStore>, ctx: SuiteContext): void {
  const pages = ctx.plan.walkPages;
  const limit = pages === undefined ? undefined : pages * WALK.limit;
  const times = { store: [] as number[], peer: [] as number[] };
  const counts = { store: 0, peer: 0 };
  const sides = {
    store: () => {
      counts.store = walkHits(store, QUERY, pages).hits;
    },
    peer: () => {
      counts.peer = peer.search(QUERY, limit).length;
    },
  };
  for (let round = 0; round < ctx.plan.rounds; round++) {
    for (const side of round % 2 === 0 ? (["store", "peer"] as const) : (["peer", "store"] as const)) {
      const started = now();
      sides[side]();
      times[side].push(now() - started);
    }
  }
  // The indexes differ (ours indexes a tool row's first 8192 characters, the hand-written all of
  // it), so the counts may too: each side reads every hit it has.
  ctx.note("peers.search.every", `${counts.store} hits (hand-written ${counts.peer})`);
  ctx.metric("peers.search.every.store", median(times.store));
  ctx.metric("peers.search.every.peer", median(times.peer));
  ctx.metric(
    "peers.search.every.ratio",
    median(times.store.map((t, i) => t / (times.peer[i] ?? Number.NaN))),
  );
}

export function peersSuite(engine: Engine, ctx: SuiteContext): void {
  const dir = join(ctx.work, "peers");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    for (const durability of ["full", "normal"] as const) ingest(engine, ctx, dir, durability);
    reads(engine, ctx, join(dir, "hand-corpus.db"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
