/**
 * `sessiondb demo [FOLDER]`: the first run. Imports the sample sessions of each format the
 * importer knows (FOLDER/<format>/, by default the project's own test fixtures beside this
 * package in a checkout) into a new store in a temporary folder, then serves that store as
 * `sessiondb serve` does, printing its address. Nothing of the user's is read or written.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import type { SqliteDriver } from "@sessiondb/core";
import { defineCommand } from "../command.js";
import { UsageError } from "../exit.js";
import { plural, print } from "../format.js";
import { openFor } from "../open.js";
import { serve } from "./serve.js";

/** The formats' fixtures in a checkout of the repository (dist/cli.js → packages/formats). */
const CHECKOUT_SAMPLES = fileURLToPath(new URL("../../formats/test/fixtures/", import.meta.url));

export const demo = defineCommand({
  name: "demo",
  usage: "demo [FOLDER] [--port N]",
  help: [
    "Makes a new store in a temporary folder, imports into it the sample sessions under",
    "FOLDER/<format>/ for each format `import --from` knows (claude-code, codex, hermes: its",
    "state.db, or the SQL that makes one; default FOLDER:",
    "the project's own fixtures, in a checkout of its repository), then serves it as",
    "`sessiondb serve` does and prints the address. Ctrl-C stops; the store is left in the",
    "temporary folder, named on the first line, to look at with the other commands.",
  ].join("\n"),
  options: { port: serve.options.port },
  args: { min: 0, max: 1, names: "FOLDER" },
  json: false,
  noJson: "it serves web pages until stopped",
  async run(context) {
    const samples = context.positionals[0] ?? CHECKOUT_SAMPLES;
    if (!fs.existsSync(samples))
      throw new UsageError(
        `no samples at ${samples}: name the folder that holds <format>/ folders of sessions`,
      );
    const { databaseFormats, importFrom, lineFormats } = await import("@sessiondb/formats");
    const temporary = fs.mkdtempSync(nodePath.join(os.tmpdir(), "sessiondb-demo-"));
    const db = nodePath.join(temporary, "demo.db");
    print(`sessiondb demo: a new store at ${db}`);
    const values = { ...context.values, db };
    const { store } = await openFor(context.runtime, values, "create");
    try {
      for (const format of lineFormats.values()) {
        const folder = nodePath.join(samples, format.name);
        if (!fs.existsSync(folder)) continue;
        const r = await importFrom(store, format, [folder]);
        print(
          `sessiondb demo: ${format.name}: ${plural(r.sessions.created, "session")}, ${plural(r.messages, "message")}`,
        );
      }
      const { driver } = await context.runtime();
      for (const format of databaseFormats.values()) {
        const sample = databaseSample(
          nodePath.join(samples, format.name),
          format.fileName,
          temporary,
          driver,
        );
        if (sample === undefined) continue;
        const r = await importFrom(store, format, [sample], { driver });
        print(
          `sessiondb demo: ${format.name}: ${plural(r.sessions.created, "session")}, ${plural(r.messages, "message")}`,
        );
      }
    } finally {
      await store.close();
    }
    return serve.run({ ...context, values, positionals: [] });
  },
});

/**
 * A database format's sample: FOLDER/<format>/<its file name>, or the database its SQL
 * (FOLDER/<format>/*.sql, as the fixtures keep it) makes, built in the demo's temporary folder.
 */
function databaseSample(
  folder: string,
  fileName: string,
  temporary: string,
  driver: SqliteDriver,
): string | undefined {
  if (fs.existsSync(nodePath.join(folder, fileName))) return nodePath.join(folder, fileName);
  const sql = fs.existsSync(folder)
    ? fs
        .readdirSync(folder)
        .filter((f) => f.endsWith(".sql"))
        .sort()
    : [];
  if (sql.length === 0) return undefined;
  const built = nodePath.join(temporary, `${nodePath.basename(folder)}-${fileName}`);
  const connection = driver.open(built, { readOnly: false });
  try {
    for (const file of sql) connection.exec(fs.readFileSync(nodePath.join(folder, file), "utf8"));
  } finally {
    connection.close();
  }
  return built;
}
