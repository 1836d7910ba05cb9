import * as nodePath from "node:path";
import type { BackupResult } from "@sessiondb/core";
import { defineCommand } from "../command.js";
import { classify, EXIT, ExitError, NeedsFileError, UsageError } from "../exit.js";
import { bytes, print, printJson } from "../format.js";
import { describeFts } from "../fts-state.js";
import { Interrupt } from "../interrupt.js";
import { openFor } from "../open.js";
import { Progress } from "../progress.js";

const METHOD: Record<BackupResult["method"], string> = {
  "online-backup": "SQLite online backup",
  "vacuum-into": "VACUUM INTO",
};

/**
 * Whether `error` says the destination's disk or quota is full: SQLite's FULL while it writes the
 * copy, or the file system's ENOSPC/EDQUOT while the copy is created, synced or renamed. The store
 * is only read, so a full disk here is the destination's; it is not exit 10, which says the
 * store's own disk is full and a change to it was not stored.
 */
function destinationFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT" || classify(error).exitCode === EXIT.FULL;
}

export const backup = defineCommand({
  name: "backup",
  usage: "backup DEST [--overwrite] [--json]",
  help: [
    "Writes a consistent copy of the store to DEST through SQLite (its online backup API where the",
    "binding has it, else VACUUM INTO), while other processes keep appending: the copy holds every",
    "write committed before it began and none of a later one, torn rows never. It is written under",
    "a temporary name beside DEST, synced, made private (0600) and renamed into place.",
    "",
    "Never back up a live store with cp, rsync or a file copy: reading or copying the file inside",
    "a process that has it open drops that process's locks, and the copy can be torn.",
  ].join("\n"),
  options: {
    overwrite: {
      type: "boolean",
      help: "replace DEST if it exists (never the store or one of its -wal/-shm/-journal files)",
    },
  },
  notes: [
    "Progress goes to stderr. Exit 2 when DEST is refused; 1 (ENOSPC) when DEST's disk is full; 130,",
    "143 or 129 when stopped by SIGINT (Ctrl-C), SIGTERM or SIGHUP. A backup that fails or is",
    "stopped writes nothing and removes its temporary copy.",
  ].join("\n"),
  args: { min: 1, max: 1, names: "DEST" },
  json: true,
  async run({ values, positionals, runtime }) {
    const dest = positionals[0];
    if (!dest) throw new UsageError("backup needs a destination path");
    const { store, where, shown } = await openFor(runtime, values, "read");
    if (where.kind === "server" && typeof store.backup !== "function") {
      await store.close();
      throw new NeedsFileError(
        "backup",
        shown,
        'use the server\'s own backups, or "sessiondb export" for a copy that "sessiondb import" reads back',
      );
    }
    const stop = new Interrupt();
    const progress = new Progress({ label: "backup", unit: "pages" });
    let paged = false;
    let pages = 0;
    try {
      let result: BackupResult;
      try {
        result = await store.backup(nodePath.resolve(dest), {
          overwrite: values.overwrite === true,
          signal: stop.signal,
          onProgress: (p) => {
            if (p.copiedPages === undefined || p.totalPages === undefined) {
              // VACUUM INTO is one statement: a terminal gets the phase, since there are no pages to count.
              if (!paged && process.stderr.isTTY) process.stderr.write(`backup: ${p.phase}…\n`);
              return;
            }
            paged = true;
            pages = p.totalPages;
            progress.update(p.copiedPages, p.totalPages);
          },
        });
      } catch (error) {
        if (stop.aborted) throw stop.error(`backup interrupted by ${stop.received}; nothing was written`);
        if (destinationFull(error))
          throw new ExitError(
            EXIT.FAILURE,
            `cannot write ${dest}: the disk (or quota) holding it is full; nothing was written, and the partial copy was removed — free space there or back up elsewhere`,
            "ENOSPC",
          );
        throw error;
      }
      if (paged) {
        // The last step copies the rest without a report of its own; finish() prints that line.
        progress.update(pages, pages);
        progress.finish("copied");
      }
      if (values.json) {
        printJson({ from: shown, ...result });
        return EXIT.OK;
      }
      print(
        `backed up ${shown} to ${result.path}: ${bytes(result.bytes)}, ${result.journalMode} mode, ${METHOD[result.method]}, ${(result.durationMs / 1000).toFixed(1)} s`,
      );
      if (result.fts) print(`  index ${describeFts(result.fts)}`);
      for (const note of result.notes) print(`  note: ${note}`);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});
