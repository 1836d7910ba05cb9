/**
 * kill -9 under group commit: a child process appends from 50 sessions at once over sqld and
 * prints each call's ids once its promise resolved; it is killed mid-stream (after a number of
 * acknowledgements, so a group is most likely in flight). Every acknowledged row is there after,
 * with its content, and every session's counter matches its rows: no resolved call lost, no group
 * half stored. Node only (the child runs the built package, dist/, with this Node).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { describe, it } from "vitest";
import { openStore } from "../src/index.js";

const WRITER = fileURLToPath(new URL("./support/group-writer.mjs", import.meta.url));
const SESSIONS = 50;
/** Acknowledgements seen before the kill: past the first rounds, into the grouped ones. */
const KILL_AFTER_ACKS = 260;

const available = sqldAvailability();
describe.skipIf(!available.ok)(
  `group commit under kill -9${available.ok ? "" : ` — skipped: ${available.reason}`}`,
  () => {
    it("every call that resolved before the kill is stored, and no group is half stored", async () => {
      const server = await startSqld();
      try {
        const child = spawn(process.execPath, [WRITER, server.httpUrl, String(SESSIONS)], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        const acked: Array<{ session: string; ids: number[]; content: string }> = [];
        let buffered = "";
        const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
        await new Promise<void>((resolve, reject) => {
          child.on("exit", (code, signal) => reject(new Error(`writer exited early (${code ?? signal})`)));
          child.stdout.setEncoding("utf8");
          child.stdout.on("data", (chunk: string) => {
            buffered += chunk;
            const lines = buffered.split("\n");
            buffered = lines.pop() ?? "";
            for (const line of lines) {
              const [tag, session, ids, ...content] = line.split(" ");
              if (tag !== "ack") continue;
              acked.push({
                session: session as string,
                ids: (ids as string).split(",").map(Number),
                content: content.join(" "),
              });
            }
            if (acked.length >= KILL_AFTER_ACKS) {
              child.kill("SIGKILL");
              resolve();
            }
          });
        });
        await exited;
        const store = await openStore(server.httpUrl);
        try {
          const rows = new Map<number, { sessionId: string; content: unknown }>();
          let total = 0;
          for (let i = 0; i < SESSIONS; i++) {
            const id = `gw-${i}`;
            const messages = await store.getMessages(id);
            for (const m of messages) rows.set(m.id, { sessionId: m.sessionId, content: m.content });
            assert.equal((await store.getSession(id))?.messageCount, messages.length, id);
            total += messages.length;
          }
          for (const ack of acked) {
            const first = rows.get(ack.ids[0] as number);
            assert.deepEqual(first, { sessionId: ack.session, content: ack.content }, `acked ${ack.ids}`);
            for (const id of ack.ids) assert.ok(rows.has(id), `acked message ${id} is gone`);
          }
          assert.ok(total >= acked.length, `${total} rows for ${acked.length} acknowledged calls`);
        } finally {
          await store.close();
        }
      } finally {
        await server.stop();
      }
    }, 120_000);
  },
);
