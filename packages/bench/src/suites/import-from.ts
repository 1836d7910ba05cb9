/**
 * `importFrom` of a generated Claude Code folder (../claude-code-folder.ts: as many messages as
 * the corpus size, at most 100k) into an empty store opened through the target's adapter, in
 * three steps per round: the first import, a re-import of the unchanged folder, and a re-import
 * after a turn was appended to every tenth session file. The reference for the first import is
 * reading and parsing the same files alone in the same process: each file read whole, every
 * line JSON.parse'd and given to the format's mapper (the work no importer can skip; writing
 * rows is what the import adds). A second reference adds the writing: the same rows stored by
 * hand, `createSession` and `appendMessages` in chunks of 500 per file, into a store of its
 * own — what the importer's own work (streaming, cursors, prices, progress) costs on top of the
 * store's. The three take turns, the order rotated every round, and each ratio is the median of
 * the rounds' ratios of rates measured back to back, so a machine that slows down mid-run
 * favours none. The re-imports are ratios to the same round's first import. Wall time: an
 * import waits on fsyncs, which CPU time would leave out.
 *
 * Memory, at the smallest size only (it does not depend on the corpus): a single transcript of
 * `plan.transcriptMB` (200 MB in a full run) imported by a fresh process (proc/import-rss.ts),
 * its resident set's growth over the import against the file's size.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import type { MessageInput, Store } from "@sessiondb/core";
import { appendTurn, writeClaudeCodeFolder, writeLongTranscript } from "../claude-code-folder.js";
import { type Engine, SIDE_FILES } from "../engine.js";
import { LARGE_STORE } from "../plans.js";
import { lastJson, runTimed, script } from "../spawn.js";
import { median, now } from "../stats.js";
import type { SuiteContext } from "./context.js";

/** The folder: 100k messages (smaller corpora import as many as they hold). */
const FOLDER_MESSAGES = 100_000;
/** Rounds of the three steps (each round imports the whole folder once). */
const MAX_ROUNDS = 2;
const SEED = 35;

interface Mapper {
  map(item: unknown, position: number): { messages: MessageInput[]; session?: { id?: string } };
}
interface Formats {
  claudeCode: { mapper(relativePath: string): Mapper };
  importFrom(
    store: Store,
    format: unknown,
    roots: string[],
  ): Promise<{ messages: number; files: { total: number; unchanged: number; resumed: number } }>;
}

// A variable specifier: the package stays external to the bundle, loaded where the suite runs.
const load = (specifier: string): Promise<unknown> => import(specifier);

/** Rows appended per call by the hand-written side, as the importer's chunks. */
const CHUNK_ROWS = 500;

/** Reading and parsing alone: the rows the mapper gives for every complete line of `files`,
 * handed to `write` per file (with the session id the lines name) when there is one. */
function readAndParse(
  formats: Formats,
  root: string,
  files: readonly string[],
  write?: (id: string, rows: MessageInput[]) => void,
): number {
  let count = 0;
  for (const file of files) {
    const relativePath = relative(root, file).split(sep).join("/");
    const mapper = formats.claudeCode.mapper(relativePath);
    const lines = readFileSync(file, "utf8").split("\n");
    lines.pop(); // after the last newline: nothing, or a line still being written
    const rows: MessageInput[] = [];
    let id: string | undefined;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (line.trim() === "") continue;
      const mapped = mapper.map(JSON.parse(line), i + 1);
      id ??= mapped.session?.id;
      count += mapped.messages.length;
      if (write) rows.push(...mapped.messages);
    }
    if (write) write(id ?? relativePath, rows);
  }
  return count;
}

/** The hand-written side's writes: a session per file, its rows in chunks. */
function handWritten(store: Store): (id: string, rows: MessageInput[]) => void {
  return (id, rows) => {
    store.createSession({ id, source: "claude-code" });
    for (let i = 0; i < rows.length; i += CHUNK_ROWS) store.appendMessages(id, rows.slice(i, i + CHUNK_ROWS));
  };
}

function expect(what: string, got: number, wanted: number): void {
  if (got !== wanted) throw new Error(`${what}: ${got}, expected ${wanted}`);
}

export async function importFromSuite(engine: Engine, ctx: SuiteContext): Promise<void> {
  // The folder is 100k messages at most, whatever the store's size: a large corpus would only
  // measure the 100k folder again.
  if (ctx.messages > LARGE_STORE) {
    ctx.note("importfrom.folder", `not measured above ${LARGE_STORE} messages: the 100k row is the figure`);
    return;
  }
  const formats = (await load("@sessiondb/formats")) as Formats;
  const root = join(ctx.work, "claude-projects");
  const db = join(ctx.work, "import-from.db");
  const plainDb = join(ctx.work, "import-from-plain.db");
  const clean = () => {
    rmSync(root, { recursive: true, force: true });
    for (const suffix of SIDE_FILES) for (const f of [db, plainDb]) rmSync(f + suffix, { force: true });
  };
  const rates = {
    read: [] as number[],
    plain: [] as number[],
    first: [] as number[],
    ratio: [] as number[],
    plainRatio: [] as number[],
  };
  const again = { ms: [] as number[], ratio: [] as number[] };
  const grown = { ms: [] as number[], ratio: [] as number[] };
  try {
    for (let round = 0; round < Math.min(ctx.plan.rounds, MAX_ROUNDS); round++) {
      clean();
      const folder = writeClaudeCodeFolder(root, SEED, Math.min(ctx.messages, FOLDER_MESSAGES));
      if (round === 0) {
        const bytes = folder.files.reduce((sum, f) => sum + statSync(f).size, 0);
        ctx.note(
          "importfrom.folder",
          `${folder.files.length} files, ${folder.messages} messages, ${(bytes / 1e6).toFixed(1)} MB`,
        );
      }
      const store = engine.openStore(db);
      const plain = engine.openStore(plainDb);
      try {
        let readMs = 0;
        let plainMs = 0;
        let firstMs = 0;
        const sides = {
          read: () => {
            const t0 = now();
            expect("rows mapped", readAndParse(formats, root, folder.files), folder.messages);
            readMs = now() - t0;
          },
          plain: () => {
            const t0 = now();
            expect(
              "rows written by hand",
              readAndParse(formats, root, folder.files, handWritten(plain)),
              folder.messages,
            );
            plainMs = now() - t0;
          },
          first: async () => {
            const t0 = now();
            const result = await formats.importFrom(store, formats.claudeCode, [root]);
            firstMs = now() - t0;
            expect("rows stored by the first import", result.messages, folder.messages);
          },
        };
        const order = ["read", "first", "plain"] as const;
        for (let i = 0; i < order.length; i++)
          await sides[order[(i + round) % order.length] as (typeof order)[number]]();
        rates.read.push(folder.messages / (readMs / 1000));
        rates.plain.push(folder.messages / (plainMs / 1000));
        rates.first.push(folder.messages / (firstMs / 1000));
        rates.ratio.push(readMs / firstMs);
        rates.plainRatio.push(plainMs / firstMs);

        let t0 = now();
        const same = await formats.importFrom(store, formats.claudeCode, [root]);
        const againMs = now() - t0;
        expect("rows stored by a re-import of the unchanged folder", same.messages, 0);
        expect("files skipped on a stat", same.files.unchanged, folder.files.length);
        again.ms.push(againMs);
        again.ratio.push(againMs / firstMs);

        // A turn appended to every tenth main session file, as live sessions grow.
        const mains = folder.files.filter((f) => !f.includes(`${sep}subagents${sep}`));
        let appended = 0;
        let touched = 0;
        for (let i = 0; i < mains.length; i += 10) {
          const file = mains[i] as string;
          appended += appendTurn(file, basename(file, ".jsonl"), SEED + i);
          touched++;
        }
        t0 = now();
        const more = await formats.importFrom(store, formats.claudeCode, [root]);
        const grownMs = now() - t0;
        expect("rows stored after the appends", more.messages, appended);
        expect("files read from where the last run stopped", more.files.resumed, touched);
        grown.ms.push(grownMs);
        grown.ratio.push(grownMs / firstMs);
      } finally {
        store.close();
        plain.close();
      }
    }
  } finally {
    clean();
  }
  ctx.metric("importfrom.read.rate", median(rates.read));
  ctx.metric("importfrom.first.rate", median(rates.first));
  ctx.metric("importfrom.first.ratio", median(rates.ratio));
  ctx.metric("importfrom.plain.rate", median(rates.plain));
  ctx.metric("importfrom.plain.ratio", median(rates.plainRatio));
  ctx.metric("importfrom.again.ms", median(again.ms));
  ctx.metric("importfrom.again.ratio", median(again.ratio));
  ctx.metric("importfrom.grown.ms", median(grown.ms));
  ctx.metric("importfrom.grown.ratio", median(grown.ratio));
}

/** Below this many corpus messages the long transcript's memory is measured (the 10k size). */
const MEMORY_AT_MOST = 20_000;

export function transcriptMemory(engine: Engine, ctx: SuiteContext): void {
  if (ctx.messages > MEMORY_AT_MOST) return;
  const root = join(ctx.work, "claude-long");
  const db = join(ctx.work, "import-long.db");
  const clean = () => {
    rmSync(root, { recursive: true, force: true });
    for (const suffix of SIDE_FILES) rmSync(db + suffix, { force: true });
  };
  clean();
  try {
    const file = writeLongTranscript(root, SEED, ctx.plan.transcriptMB * 1e6);
    const fileMiB = statSync(file).size / (1024 * 1024);
    const { stdout } = runTimed(ctx.exec, script("proc/import-rss.js"), [engine.target, db, root]);
    const run = lastJson<{ baseMiB: number; peakMiB: number; exact: boolean; messages: number; ms: number }>(
      stdout,
    );
    if (run.messages === 0) throw new Error("the long transcript imported no rows");
    ctx.note(
      "importfrom.rss",
      `${fileMiB.toFixed(0)} MiB file, ${run.messages} rows in ${(run.ms / 1000).toFixed(1)} s, peak ${run.exact ? "VmHWM" : "sampled rss"}`,
    );
    ctx.metric("importfrom.rss.base", run.baseMiB);
    ctx.metric("importfrom.rss.peak", run.peakMiB);
    ctx.metric("importfrom.rss.ratio", (run.peakMiB - run.baseMiB) / fileMiB);
  } finally {
    clean();
  }
}
