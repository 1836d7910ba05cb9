/** The importer cases under `deno test` (node:test's describe/it): Deno's SQLite. */
import { after, describe, it } from "node:test";
import { openStore } from "@sessiondb/deno";
import { openStore as openLibsql } from "@sessiondb/libsql";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { importAsyncCases } from "./import-async-cases.ts";
import { importCases } from "./import-cases.ts";
import { importResumeCases } from "./import-resume-cases.ts";

importCases(describe, it, "Deno", (path) => openStore(path));
importResumeCases(describe, it, "Deno", (path) => openStore(path));

const sqld = sqldAvailability();
if (sqld.ok) {
  let server: Promise<SqldServer> | undefined;
  after(async () => (await server)?.stop());
  importAsyncCases(
    describe,
    it,
    "Deno",
    (path) => openStore(path),
    async () => {
      server ??= startSqld();
      const store = await openLibsql((await server).httpUrl);
      return { store, close: () => store.close() };
    },
  );
} else {
  console.log(`importFrom into an async store on sqld — skipped: ${sqld.reason}`);
  describe.skip(`importFrom into an async store on sqld — skipped: ${sqld.reason}`, () => {});
}
