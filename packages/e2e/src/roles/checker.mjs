/**
 * Checker: the invariants of spec §11 on a short-lived read-only connection, after an episode.
 * Reads every role's report (the ledger) and every stored row, and writes a verdict to `cfg.out`:
 * required acknowledged appends stored exactly once with the exact body, every other intended
 * one at most once and never torn (a batch is all or nothing; an imported session, record and
 * messages, too — and one a pruner was deleting, unless the deletion was acknowledged: then it
 * is gone), refused ones not at all, no
 * phantom rows or sessions, the stored appends closed under "committed before" (prefix), counters
 * equal to the rows, counts not below what any reader saw, integrity_check and FTS5
 * integrity-check (checkIntegrity), the arm's journal mode, and a seeded sample of required
 * tokens found exactly once by search.
 *
 * On a libSQL server (`cfg.url`, the fleet) the same checks run through the server.
 *
 * Which acknowledged appends are required: all of them (the store itself); those acknowledged
 * before a cut (`cfg.cut`: a backup holds what was committed before it began); or a list
 * (`cfg.expectTokens`: a repaired store holds what the damaged file still held).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { hasTail, makeContent, tailToken } from "./lib/content.mjs";
import { readLedger } from "./lib/ledger.mjs";
import { Rng } from "./lib/prng.mjs";
import { describeError } from "./lib/runtime.mjs";

const HEAD = /^(zq[0-9a-z]+) /;

/** The acknowledged appends the store must hold, and the counts readers saw before then. */
function required(cfg) {
  if (cfg.expectTokens) {
    const want = new Set(JSON.parse(readFileSync(cfg.expectTokens, "utf8")));
    const all = readLedger(cfg.reportsDir).acks;
    return { acks: new Map([...all].filter(([token]) => want.has(token))), observedCounts: new Map() };
  }
  return readLedger(cfg.reportsDir, { cut: cfg.cut });
}

/**
 * Prefix: the stored appends are what was committed up to one moment. Within a writer, an
 * append follows the previous one's commit, so a stored append needs every earlier
 * acknowledged one of its writer (report order). Across writers, an append whose intent was
 * recorded after another append's ack (strictly later, one machine's clock) began after that
 * commit, so it cannot be stored without it.
 */
function prefixProblems(ledger, found) {
  const problems = [];
  const stored = (group) => group.tokens.some((t) => (found.get(t) ?? []).length > 0);
  const ackedAt = (group) => ledger.ackAt.get(group.tokens[0]);
  const firstMissing = new Map(); // writer -> first acknowledged group not stored
  let earliestMissing; // the missing acknowledged group acknowledged first
  for (const group of ledger.groups) {
    if (stored(group) || ackedAt(group) === undefined) continue;
    if (!firstMissing.has(group.writer)) firstMissing.set(group.writer, group);
    if (!earliestMissing || ackedAt(group) < ackedAt(earliestMissing)) earliestMissing = group;
  }
  const seen = new Set();
  for (const group of ledger.groups) {
    const missing = firstMissing.get(group.writer);
    if (missing === group) seen.add(group.writer);
    if (!stored(group)) continue;
    if (seen.has(group.writer))
      problems.push(
        `${group.tokens[0]} (${group.writer}) is stored, but its writer's earlier acknowledged ${missing.tokens[0]} is not`,
      );
    else if (earliestMissing && group.at > ackedAt(earliestMissing))
      problems.push(
        `${group.tokens[0]} (${group.writer}, intended at ${group.at}) is stored, but ${earliestMissing.tokens[0]} (${earliestMissing.writer}), acknowledged earlier at ${ackedAt(earliestMissing)}, is not`,
      );
  }
  return problems;
}

export async function checker({ cfg, report, adapter }) {
  const rng = new Rng(`${cfg.seed}/${cfg.name}`);
  const problems = [];
  const problem = (kind, detail) => problems.push({ kind, detail });
  // Writers may still be running (a check in the middle of an episode): the required
  // acknowledgements (and the counts readers observed) are taken from a ledger read BEFORE the
  // rows (an ack is written after its commit, so each one must be in the rows read next),
  // intents from one read AFTER them (an intent is written before its append, so every row read
  // has one by then). Per-row counters and the prefix are judged only when no writer is live
  // (cfg.live false): the API reads below are not one snapshot.
  const early = required(cfg);
  const started = Date.now();
  const store = await adapter.open(cfg.store, { readOnly: true });
  const stats = { journalMode: store.journalMode, sqlite: store.sqliteVersion, driver: store.driverName };
  try {
    if (cfg.arm && store.journalMode !== cfg.arm)
      problem("journal-mode", `journal mode is ${store.journalMode}, the arm is ${cfg.arm}`);
    stats.fts = await store.ftsStatus();
    if (cfg.expectFts && !cfg.expectFts.includes(stats.fts.state))
      problem(
        "fts-state",
        `ftsStatus().state is ${stats.fts.state}, expected one of ${cfg.expectFts.join(", ")}`,
      );

    try {
      const integrity = await store.checkIntegrity();
      stats.integrity = integrity;
      for (const p of integrity.problems) problem("integrity", `${p.kind}: ${p.message}`);
    } catch (error) {
      problem(
        "integrity",
        `checkIntegrity() threw: ${JSON.stringify(describeError(error, adapter.mod.SessionDbError))}`,
      );
    }

    // Every stored row, through the public API; then the ledger (see above).
    const sessions = await store.listSessions({ limit: 1_000_000, includeArchived: true });
    const stored = [];
    for (const s of sessions)
      stored.push({ s, messages: await store.getMessages(s.id, { includeInactive: true }) });
    const total = await store.messageCount();
    const ledger = readLedger(cfg.reportsDir);

    const found = new Map(); // token -> [ids]
    const counts = {};
    let rows = 0;
    for (const { s, messages } of stored) {
      if (!ledger.sessions.has(s.id))
        problem("phantom-session", `session ${s.id} was never created by a role`);
      rows += messages.length;
      counts[s.id] = messages.length;
      if (!cfg.live && s.messageCount !== messages.length)
        problem("counter", `session ${s.id}: message_count ${s.messageCount} but ${messages.length} rows`);
      const floor = Math.max(early.observedCounts.get(s.id) ?? 0, cfg.minCounts?.[s.id] ?? 0);
      if (messages.length < floor)
        problem(
          "count-decreased",
          `session ${s.id}: ${messages.length} rows, but ${floor} were observed earlier`,
        );
      for (const m of messages) {
        const head = typeof m.content === "string" ? HEAD.exec(m.content)?.[1] : undefined;
        const intent = head && ledger.intents.get(head);
        if (!intent) {
          problem(
            "phantom-row",
            `message ${m.id} in ${s.id} carries no token any writer intended (${JSON.stringify(String(m.content).slice(0, 60))})`,
          );
          continue;
        }
        found.set(head, [...(found.get(head) ?? []), m.id]);
        if (intent.session !== s.id || intent.role !== m.role)
          problem(
            "misplaced",
            `${head}: intended ${intent.role} in ${intent.session}, stored ${m.role} in ${s.id} (id ${m.id})`,
          );
        else if (m.content !== makeContent(head, intent.role, intent.len))
          problem(
            "torn",
            `${head} (id ${m.id}): stored body differs from the appended one (${m.content.length} vs ${intent.len} chars)`,
          );
      }
    }
    for (const id of Object.keys(cfg.minCounts ?? {})) {
      if (!sessions.some((x) => x.id === id)) problem("count-decreased", `session ${id} disappeared`);
    }
    if (!cfg.live && total !== rows)
      problem("counter", `messageCount() is ${total}, but the sessions hold ${rows} rows`);

    // Exactly once / at most once / not at all. A refusal whose outcome the client could not
    // know (`cfg.uncertainCodes`: the connection to a server broke after the request was sent)
    // counts as in flight: stored at most once.
    const uncertain = new Set(cfg.uncertainCodes ?? []);
    const refused = (token) => {
      const error = ledger.fails.get(token);
      return error !== undefined && !uncertain.has(error.code) && !uncertain.has(error.extendedCode);
    };
    let inflight = 0;
    let inflightStored = 0;
    for (const [token, intent] of ledger.intents) {
      const ids = found.get(token) ?? [];
      const ackedId = ledger.acks.get(token);
      if (ledger.deleting.has(intent.session)) {
        // A pruner set out to delete its session: whole or absent, judged per session below.
        if (ids.length > 1) problem("stored-twice", `${token} (${intent.writer}) stored ${ids.length} times`);
      } else if (early.acks.has(token)) {
        if (ids.length !== 1)
          problem(
            "acked-not-once",
            `acknowledged ${token} (id ${ackedId}, ${intent.writer}) stored ${ids.length} times`,
          );
      } else if (refused(token)) {
        if (ids.length !== 0)
          problem(
            "refused-stored",
            `${token}: the append threw ${JSON.stringify(ledger.fails.get(token))}, yet it is stored ${ids.length} times`,
          );
      } else {
        // In flight, or acknowledged but not required here (after the cut, not in the list).
        inflight++;
        if (ids.length > 0) inflightStored++;
        if (ids.length > 1)
          problem("inflight-twice", `not required ${token} (${intent.writer}) stored ${ids.length} times`);
      }
      if (ackedId !== undefined && ids.length === 1 && ids[0] !== ackedId)
        problem("acked-wrong-id", `${token}: acknowledged as id ${ackedId}, stored as id ${ids[0]}`);
    }
    const storedIds = new Set(sessions.map((s) => s.id));
    for (const { tokens, session, whole } of ledger.groups) {
      const counts = tokens.map((t) => (found.get(t) ?? []).length);
      if (counts.some((c) => c !== counts[0]))
        problem("torn-batch", `batch ${tokens.join(",")} stored partially: ${counts.join(",")}`);
      else if (whole && storedIds.has(session) !== (counts[0] === 1))
        problem(
          "torn-session",
          `imported session ${session} is ${storedIds.has(session) ? "there" : "absent"} with ${counts[0]} of each of its ${tokens.length} messages`,
        );
      else if (ledger.deleted.has(session) && storedIds.has(session))
        problem("deleted-stored", `session ${session} is still there after its deletion was acknowledged`);
    }
    // A deleted session's appends are gone by design, not by a lost commit.
    const kept = { ...ledger, groups: ledger.groups.filter((g) => !ledger.deleting.has(g.session)) };
    if (!cfg.live) for (const p of prefixProblems(kept, found)) problem("not-prefix", p);

    // Search: a seeded sample of acknowledged tokens, exactly once.
    const acked = [...early.acks.keys()].filter((t) => !ledger.deleting.has(ledger.intents.get(t)?.session));
    const sample = Array.from({ length: Math.min(cfg.searchSample ?? 40, acked.length) }, () =>
      rng.pick(acked),
    );
    let searched = 0;
    const routes = {};
    for (const token of sample) {
      const id = ledger.acks.get(token);
      const intent = ledger.intents.get(token);
      const checks = [[token, {}]];
      if (intent.role !== "tool") checks.push([token, { substring: true }]);
      if (hasTail(intent.role, intent.len)) checks.push([tailToken(token), { roles: ["tool"] }]);
      for (const [query, options] of checks) {
        const result = await store.search(query, { limit: 5, ...options });
        routes[result.route] = (routes[result.route] ?? 0) + 1;
        searched++;
        const ids = result.hits.map((h) => h.messageId);
        if (ids.length !== 1 || ids[0] !== id)
          problem(
            "search",
            `search(${JSON.stringify(query)}, ${JSON.stringify(options)}) via ${result.route} returned [${ids.join(",")}], expected exactly [${id}]`,
          );
      }
      // The tail lies beyond the 8192-character prefix: word search over the index must not see it.
      if (hasTail(intent.role, intent.len)) {
        const result = await store.search(tailToken(token), { limit: 5 });
        if (result.route === "fts" && result.hits.length !== 0)
          problem(
            "search-prefix",
            `tail token ${tailToken(token)} past the tool prefix was found by word search via fts`,
          );
      }
    }
    Object.assign(stats, {
      sessions: sessions.length,
      rows,
      acked: ledger.acks.size,
      required: early.acks.size,
      refused: ledger.fails.size,
      inflight,
      inflightStored,
      searched,
      routes,
      counts,
    });
  } finally {
    await store.close();
  }
  stats.ms = Date.now() - started;
  const verdict = { ok: problems.length === 0, problems, stats };
  writeFileSync(cfg.out, JSON.stringify(verdict, null, 1));
  report.event("verdict", { ok: verdict.ok, problems: problems.length });
}
