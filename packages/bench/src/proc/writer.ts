/**
 * A second process appending messages one at a time (each its own transaction, as an agent
 * does) until a stop file appears, recording each append's start (wall clock, to line it up
 * with the other process's job) and latency. Prints "ready" once open, then one JSON line.
 * Usage: <runtime> dist/proc/writer.js <target> <db> <stop-file> <pause-ms>
 */
import { existsSync } from "node:fs";
import process from "node:process";
import { loadEngine, type TargetId } from "../engine.js";
import { now, sleep } from "../stats.js";

const [target, path, stopFile, pause] = process.argv.slice(2) as [TargetId, string, string, string];
const engine = await loadEngine(target);
const store = engine.openStore(path);
const session = `bench-writer-${process.pid}`;
store.createSession({ id: session, source: "bench" });
const body = "writer under load: ".padEnd(1200, "lorem ipsum dolor sit amet ");
const samples: Array<[number, number]> = [];
const errors: string[] = [];
process.stdout.write("ready\n");
for (let i = 0; !existsSync(stopFile); i++) {
  const at = Date.now();
  const t0 = now();
  try {
    store.appendMessage(session, { role: i % 2 ? "assistant" : "user", content: `${body} #${i}` });
    samples.push([at, now() - t0]);
  } catch (error) {
    errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }
  await sleep(Number(pause));
}
store.close();
process.stdout.write(`${JSON.stringify({ samples, errors })}\n`);
