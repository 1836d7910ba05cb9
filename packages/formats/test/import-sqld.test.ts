/** The async-store importer cases under vitest: `@sessiondb/libsql` on a real sqld against
 * @sessiondb/node. Skipped, saying why, where no sqld binary is available. */
import { openStore as openLibsql } from "@sessiondb/libsql";
import { openStore } from "@sessiondb/node";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, describe, it } from "vitest";
import { importAsyncCases } from "./import-async-cases.js";

const available = sqldAvailability();
if (available.ok) {
  let server: Promise<SqldServer> | undefined;
  afterAll(async () => (await server)?.stop());
  importAsyncCases(describe, it, `Node ${process.versions.node}`, openStore, async () => {
    server ??= startSqld();
    const store = await openLibsql((await server).httpUrl);
    return { store, close: () => store.close() };
  });
} else {
  describe.skip(`importFrom into an async store on sqld — skipped: ${available.reason}`, () => {});
}
