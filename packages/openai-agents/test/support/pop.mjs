/**
 * `node pop.mjs <db> <sessionId> <startAt>`: waits until `startAt` (epoch ms, so two processes
 * start popping together), pops until the session is empty and prints what it got (the
 * two-process popItem test runs two of these at once on one file).
 */
import { openStore } from "@sessiondb/node";
import { SessionDbSession } from "@sessiondb/openai-agents";

const [db, sessionId, startAt] = process.argv.slice(2);
const store = openStore(db);
const popped = [];
try {
  const session = new SessionDbSession({ store, sessionId });
  await session.getSessionId();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
  // A breath between pops, as an agent would take: a tight loop can hold the lock from one
  // transaction to the next, and the other process would only ever wait.
  for (let item = await session.popItem(); item !== undefined; item = await session.popItem()) {
    popped.push(item);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
} finally {
  store.close();
}
process.stdout.write(JSON.stringify(popped));
