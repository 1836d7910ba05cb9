import { defineCommand } from "../command.js";
import { EXIT } from "../exit.js";
import { bytes, count, pairs, print, printJson, usd } from "../format.js";
import { describeFts } from "../fts-state.js";
import { exactUsd } from "../money.js";
import { fileSizes, openFor } from "../open.js";
import { detectRuntime } from "../runtime.js";
import { driverOf } from "../server.js";

export const stats = defineCommand({
  name: "stats",
  usage: "stats [--json]",
  help: [
    "Opens the store read-only and prints what is in it.",
    "On a libSQL server there are no files to measure: size is left out (null with --json).",
  ].join("\n"),
  options: {},
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const { store, where, shown } = await openFor(runtime, values, "read");
    try {
      const { fts, ...counts } = await store.stats();
      const size = where.kind === "file" ? fileSizes(where.path) : null;
      const rt = detectRuntime();
      const report = {
        path: shown,
        runtime: `${rt.name} ${rt.version}`,
        driver: driverOf(store),
        sqliteVersion: store.sqliteVersion,
        journalMode: store.journalMode,
        sizeBytes: size,
        ...counts,
        costUsd: exactUsd(counts.costUsd),
        fts,
      };
      if (values.json) {
        printJson(report);
        return EXIT.OK;
      }
      const rows: Array<[string, string]> = [
        ["store", shown],
        ["runtime", `${report.runtime}, ${driverOf(store)}, SQLite ${store.sqliteVersion}`],
        [
          "size",
          size
            ? `${bytes(size.total)} (db ${bytes(size.db)}, wal ${bytes(size.wal)}, shm ${bytes(size.shm)})`
            : "- (the server keeps the files)",
        ],
        ["journal", store.journalMode],
        ["sessions", `${count(counts.sessions.total)} (${count(counts.sessions.archived)} archived)`],
        ["messages", count(counts.messages.total)],
        ...Object.entries(counts.messages.byRole).map(([role, n]): [string, string] => [
          `  ${role}`,
          count(n ?? 0),
        ]),
        ["tool calls", count(counts.toolCalls)],
        ["tokens", `${count(counts.tokens.input)} in, ${count(counts.tokens.output)} out`],
        ["cost", usd(counts.costUsd)],
        ["fts", describeFts(fts)],
      ];
      print(pairs(rows));
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});
