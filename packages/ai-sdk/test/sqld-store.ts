/**
 * Stores on a real sqld for the chat cases, for every runner: one server per test file (started
 * on first use) and one `@sessiondb/libsql` store per case; the cases share its database, each
 * writing chats of ids of its own.
 */
import { openStore } from "@sessiondb/libsql";
import { type SqldServer, startSqld } from "@sessiondb/test-sqld";
import type { OpenStore } from "./chat-cases.js";

let server: Promise<SqldServer> | undefined;

/** Opens an async store on the file's sqld over `transport`. */
export function sqldStore(transport: "http" | "ws"): OpenStore {
  return async () => {
    server ??= startSqld();
    const running = await server;
    const store = await openStore(transport === "http" ? running.httpUrl : running.wsUrl);
    return { store, close: () => store.close() };
  };
}

/** Stops the file's sqld, if one was started. */
export async function stopSqld(): Promise<void> {
  await (await server)?.stop();
  server = undefined;
}
