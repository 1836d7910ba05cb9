import { defineCommand } from "../command.js";
import { EXIT } from "../exit.js";
import { bytes, print, printJson } from "../format.js";
import { Interrupt } from "../interrupt.js";
import { openFor } from "../open.js";
import { Progress } from "../progress.js";
import { cliProse } from "../wording.js";

export const vacuum = defineCommand({
  name: "vacuum",
  usage: "vacuum [--full] [--json]",
  help: [
    "Stores keep the pages that deleted sessions and pruned messages used on a free list, and",
    "reuse them for new rows. vacuum hands them back to the file system in short steps (about",
    "15 ms of write lock each while others write, with a pause between), so agents appending",
    "meanwhile barely notice. Run `sessiondb fts optimize` first to compact the search index too.",
    "",
    "A store created before sessiondb had incremental vacuum cannot be vacuumed in steps: vacuum",
    "says so and changes nothing, unless --full is given.",
  ].join("\n"),
  options: {
    full: {
      type: "boolean",
      help: "rewrite the whole store with SQLite's VACUUM: compacts everything and makes later vacuums incremental, but holds the write lock for the whole rewrite (writers wait, up to their patience) and needs free disk space the size of the store",
    },
  },
  notes: [
    "Progress goes to stderr on a terminal. Ctrl-C stops between steps (what was freed stays",
    "freed; exit 130).",
  ].join("\n"),
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const { store, shown, where } = await openFor(runtime, values, "write");
    const stop = new Interrupt();
    const bar =
      !values.json && process.stderr.isTTY ? new Progress({ label: "vacuum", unit: "pages" }) : undefined;
    try {
      if (values.full && !values.json && process.stderr.isTTY)
        process.stderr.write("vacuum: rewriting the whole store (writers wait until it is done)…\n");
      let result: Awaited<ReturnType<typeof store.vacuum>>;
      try {
        result = await store.vacuum({
          full: values.full === true,
          signal: stop.signal,
          onProgress: (p) => bar?.update(p.freedPages, p.totalPages, p.done),
        });
      } catch (error) {
        if (!stop.aborted) throw error;
        throw stop.error("vacuum interrupted; the space freed so far stays freed");
      }
      bar?.finish("freed");
      if (values.json) {
        printJson({ store: shown, ...result, ...(result.note ? { note: cliProse(result.note) } : {}) });
        return EXIT.OK;
      }
      if (result.method === "none") {
        print(`nothing done: ${cliProse(result.note ?? "")}`);
        // A full vacuum is the way only for a file this process can rewrite; a server keeps its
        // own file, and --full there does nothing either.
        if (result.reclaimableBytes > 0 && where.kind === "file" && !values.full)
          print(`  ${bytes(result.reclaimableBytes)} could be reclaimed with \`sessiondb vacuum --full\``);
        return EXIT.OK;
      }
      print(
        `vacuumed ${shown} (${result.method}): ${bytes(result.bytesBefore)} → ${bytes(result.bytesAfter)}, ${(result.durationMs / 1000).toFixed(1)} s`,
      );
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});
