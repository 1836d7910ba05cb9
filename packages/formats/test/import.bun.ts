/** The importer cases under `bun test`: bun:sqlite. */
import { afterAll, describe, it } from "bun:test";
import { openStore } from "@sessiondb/bun";
import { openStore as openLibsql } from "@sessiondb/libsql";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { importAsyncCases } from "./import-async-cases.js";
import { importCases } from "./import-cases.js";
import { importResumeCases } from "./import-resume-cases.js";

importCases(describe, it, "Bun", (path) => openStore(path));
importResumeCases(describe, it, "Bun", (path) => openStore(path));

const sqld = sqldAvailability();
if (sqld.ok) {
  let server: Promise<SqldServer> | undefined;
  afterAll(async () => (await server)?.stop());
  importAsyncCases(
    describe,
    it,
    "Bun",
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
