import { defineCommand } from "../command.js";
import { EXIT, ExitError } from "../exit.js";
import { count, pairs, print, printJson } from "../format.js";
import { describeFts } from "../fts-state.js";
import { Interrupt } from "../interrupt.js";
import { integer } from "../numbers.js";
import { openFor } from "../open.js";
import { Progress } from "../progress.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export const ftsStatus = defineCommand({
  name: "fts status",
  usage: "fts status [--json]",
  help: "Opens the store read-only. Exit code 0 whatever the state; see `doctor` for a verdict.",
  options: {},
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const { store, shown } = await openFor(runtime, values, "read");
    try {
      const status = await store.ftsStatus();
      if (values.json) printJson({ path: shown, ...status });
      else
        print(
          pairs([
            ["state", describeFts(status)],
            ["trigram", status.trigram ? "yes (substring and CJK search)" : "no"],
          ]),
        );
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});

export const ftsRebuild = defineCommand({
  name: "fts rebuild",
  usage: "fts rebuild [--timeout MS] [--json]",
  help: [
    "Rebuilds both indexes under the FTS admission lock (one rebuild at a time across all",
    "processes). One short transaction empties the index and re-attaches it; the old rows are then",
    "indexed in paced chunks that let other processes write between them, while search tops up the",
    "rows not indexed yet by LIKE, so it never misses. A rebuild that is killed leaves a backfill",
    "that `sessiondb fts backfill` (or the next rebuild) finishes.",
  ].join("\n"),
  options: {
    timeout: {
      type: "string",
      value: "MS",
      parse: integer({ min: 1 }),
      help: "how long to wait for another process's rebuild (default 120000)",
    },
  },
  notes: [
    "Progress goes to stderr: a bar on a terminal, plain lines otherwise.",
    "Exit 4 when another process holds the admission lock past the timeout.",
  ].join("\n"),
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const timeoutMs = values.timeout;
    const { store } = await openFor(runtime, values, "write", { repairFtsOnOpen: false });
    try {
      const total = await store.messageCount();
      const progress = new Progress({ label: "fts rebuild", unit: "rows" });
      const started = performance.now();
      const result = await store.rebuildFts({
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        onProgress: (p) => progress.update(p.indexed, p.total),
      });
      if (result.rebuilt) progress.finish("done");
      const ms = performance.now() - started;
      if (values.json) printJson({ ...result, messages: total, ms: Math.round(ms) });
      if (!result.rebuilt) {
        const reason = result.reason ?? "unknown reason";
        const held = result.blocked === "held";
        throw new ExitError(
          held ? EXIT.BUSY : EXIT.FAILURE,
          `not rebuilt: ${reason}`,
          held ? "FTS_ADMISSION_HELD" : "FTS_NOT_REBUILT",
        );
      }
      if (!values.json) print(`rebuilt the index over ${count(total)} messages in ${seconds(ms)}`);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});

export const ftsOptimize = defineCommand({
  name: "fts optimize",
  usage: "fts optimize [--json]",
  help: [
    "Merges the index's segments in short steps (FTS5 'merge'), each holding the write lock about",
    "15 ms while other processes write, until no level holds more than one segment. FTS5's own",
    "'optimize' would hold the lock for the whole merge (seconds on a large store). Run it when the",
    "store is quiet: next to a steady writer it stops after about one rewrite of the index. Skipped",
    "while the index is stale.",
  ].join("\n"),
  options: {},
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const { store } = await openFor(runtime, values, "write", { repairFtsOnOpen: false });
    try {
      const started = performance.now();
      await store.optimizeFts();
      const ms = performance.now() - started;
      const status = await store.ftsStatus();
      if (values.json)
        printJson({
          optimized: status.state !== "stale" && status.state !== "unavailable",
          ms: Math.round(ms),
          fts: status,
        });
      else if (status.state === "stale" || status.state === "unavailable")
        print(`not optimized: the index is ${describeFts(status)}`);
      else print(`optimized in ${seconds(ms)}`);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});

export const ftsBackfill = defineCommand({
  name: "fts backfill",
  usage: "fts backfill [--chunk IDS] [--json]",
  help: [
    "Continues a pending backfill, or starts one (the index is emptied and refilled chunk by chunk",
    "while search tops up the missing window by LIKE, so it never misses). Each chunk commits its",
    "progress in the same transaction: Ctrl-C (or a kill) stops it, and the next run resumes where",
    "the last committed chunk ended. The loop backs off while other processes write.",
  ].join("\n"),
  options: {
    chunk: {
      type: "string",
      value: "IDS",
      parse: integer({ min: 1 }),
      help: "the most message ids per chunk (default: chunks grow while nobody else writes until one holds the write lock about a second)",
    },
  },
  notes: "Progress goes to stderr: a bar on a terminal, plain lines otherwise. Exit 130 when interrupted.",
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const chunkRows = values.chunk;
    // No repair at open: a stale index is exactly what a backfill refills, in chunks, instead of
    // one long rebuild before the first progress line.
    const { store } = await openFor(runtime, values, "write", { repairFtsOnOpen: false });
    // First Ctrl-C (or SIGTERM, SIGHUP): finish the chunk in flight, then stop. Second: leave
    // now (the chunk in flight rolls back; committed chunks stay).
    const stop: Interrupt = new Interrupt(() => process.exit(stop.exitCode));
    const progress = new Progress({ label: "fts backfill", unit: "rows" });
    let last = { indexed: 0, total: 0, done: false };
    try {
      const before = await store.ftsStatus();
      if (before.state === "unavailable") {
        throw new ExitError(
          EXIT.UNUSABLE,
          "this SQLite has no FTS5: there is no index to backfill; search answers by LIKE",
          "FTS_UNAVAILABLE",
        );
      }
      if (before.state === "backfilling") {
        last = { indexed: before.indexed ?? 0, total: before.total ?? 0, done: false };
        if (!values.json)
          process.stderr.write(`resuming a backfill at ${count(last.indexed)}/${count(last.total)} rows\n`);
      } else {
        last = { indexed: 0, total: await store.messageCount(), done: false };
      }
      progress.update(last.indexed, last.total, true);
      try {
        await store.backfillFts({
          signal: stop.signal,
          ...(chunkRows ? { chunkRows } : {}),
          onProgress: (p) => {
            last = p;
            progress.update(p.indexed, p.total);
          },
        });
      } catch (error) {
        if (!stop.aborted) throw error;
        const status = await store.ftsStatus();
        const { indexed, total } = status.state === "backfilling" ? status : last;
        progress.update(indexed, total, true);
        if (values.json) printJson({ done: false, interrupted: true, indexed, total });
        throw stop.error(
          `interrupted at ${count(indexed)}/${count(total)} rows; progress is saved — run "sessiondb fts backfill" again to resume`,
        );
      }
      progress.finish("done");
      const status = await store.ftsStatus();
      if (values.json)
        printJson({ done: true, interrupted: false, indexed: last.total, total: last.total, fts: status });
      else print(`index ${describeFts(status)}: ${count(last.total)} rows backfilled`);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});
