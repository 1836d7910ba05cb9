/**
 * Test-only: the conformance suite's child appender as another Deno process (Deno.Command: the
 * node:child_process spawn copies the environment, which needs --allow-env).
 */
import { dirname } from "node:path";
import { type ChildAppender, waitForAcks } from "@sessiondb/conformance";

const SCRIPT = new URL("./fixtures/backup-appender.ts", import.meta.url).pathname;

export const appender: ChildAppender = async ({ path, sessionId, ledger }) => {
  const dir = dirname(path);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", `--allow-read`, `--allow-write=${dir}`, SCRIPT, path, sessionId, ledger],
    cwd: new URL("..", import.meta.url).pathname,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const exited = child.status.then(async (status) => {
    throw new Error(`the appender exited early (${status.code}): ${await new Response(child.stderr).text()}`);
  });
  await Promise.race([waitForAcks(ledger, 1), exited]);
  exited.catch(() => {});
  return {
    async stop() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
    },
  };
};
