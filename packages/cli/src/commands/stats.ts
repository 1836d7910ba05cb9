import type { Command } from "../command.js";
import { EXIT } from "../exit.js";
import { bytes, count, pairs, print, printJson } from "../format.js";
import { allSessions, readCounts } from "../inspect.js";
import { fileSizes, openFor, patience } from "../open.js";
import { describeFts } from "./fts.js";

export const stats: Command = {
  name: "stats",
  summary: "sessions, messages by role, size on disk, journal mode, FTS state",
  usage: "stats [--json]",
  help: "Opens the store read-only and prints what is in it.",
  options: {},
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const rt = await runtime();
    const store = openFor(rt, values, "read");
    try {
      const counts = readCounts(rt.driver, store.path, patience(values)?.writeMs);
      const fts = store.ftsStatus();
      const size = fileSizes(store.path);
      const sessions = counts?.sessions ?? allSessions(store).length;
      const messages = counts?.messages ?? store.messageCount();
      const report = {
        path: store.path,
        runtime: `${rt.name} ${rt.version}`,
        driver: store.driverName,
        sqliteVersion: store.sqliteVersion,
        journalMode: store.journalMode,
        sizeBytes: size,
        sessions: { total: sessions, archived: counts?.archived ?? null },
        messages: { total: messages, byRole: counts?.byRole ?? null },
        fts,
      };
      if (values.json) {
        printJson(report);
        return EXIT.OK;
      }
      const rows: Array<[string, string]> = [
        ["store", store.path],
        ["runtime", `${report.runtime}, ${store.driverName}, SQLite ${store.sqliteVersion}`],
        [
          "size",
          `${bytes(size.total)} (db ${bytes(size.db)}, wal ${bytes(size.wal)}, shm ${bytes(size.shm)})`,
        ],
        ["journal", store.journalMode],
        ["sessions", counts ? `${count(sessions)} (${count(counts.archived)} archived)` : count(sessions)],
        ["messages", count(messages)],
        ...Object.entries(counts?.byRole ?? {}).map(([role, n]): [string, string] => [`  ${role}`, count(n)]),
        ["fts", describeFts(fts)],
      ];
      print(pairs(rows));
      return EXIT.OK;
    } finally {
      store.close();
    }
  },
};
