/**
 * One agent turn in a process of its own: `node turn.mjs <db> <sessionId> <input>` runs the
 * weather agent with a SessionDbSession over the store file and prints the final output and the
 * session's items as JSON.
 */
import { run, setTracingDisabled } from "@openai/agents-core";
import { openStore } from "@sessiondb/node";
import { SessionDbSession } from "@sessiondb/openai-agents";
import { weatherAgent } from "./script-model.mjs";

setTracingDisabled(true);
const [db, sessionId, input] = process.argv.slice(2);
const store = openStore(db);
try {
  const session = new SessionDbSession({ store, sessionId, session: { model: "script-model" } });
  const result = await run(weatherAgent(), input, { session });
  process.stdout.write(JSON.stringify({ finalOutput: result.finalOutput, items: await session.getItems() }));
} finally {
  store.close();
}
