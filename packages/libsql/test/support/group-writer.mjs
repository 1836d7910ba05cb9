/**
 * Child process of test/group-commit-kill.test.ts: one store on the sqld at argv[2], its sessions
 * gw-0 … gw-(n-1) (argv[3]) appending at once, round after round, until the process is killed.
 * Each call that resolves prints `ack <session> <ids joined by ,> <first content>` — printed only
 * after its promise resolved, so every line names rows the store acknowledged as committed.
 */
import { openStore } from "../../dist/index.js";

const [url, count] = [process.argv[2], Number(process.argv[3])];
const store = await openStore(url);
const sessions = Array.from({ length: count }, (_, i) => `gw-${i}`);
for (const id of sessions) await store.createSession({ id, source: "gateway" });
process.stdout.write("ready\n");
for (let round = 0; ; round++) {
  await Promise.all(
    sessions.map(async (session, i) => {
      const content = `kill ${round}.${i}`;
      const ids =
        i % 3 === 0
          ? await store.appendMessages(session, [
              { role: "user", content },
              { role: "assistant", content: `${content} reply` },
            ])
          : [await store.appendMessage(session, { role: "user", content })];
      process.stdout.write(`ack ${session} ${ids.join(",")} ${content}\n`);
    }),
  );
}
