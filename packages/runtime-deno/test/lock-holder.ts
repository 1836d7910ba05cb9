/**
 * Test-only: a lock holder in another Deno process for core's driver contract. POSIX locks are
 * per process, whatever the library, so the holder always uses node:sqlite.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { LockHolder } from "@sessiondb/conformance";

/** "locked" once it holds `begin`; rolls back when stdin closes. */
const HOLDER = `
import { DatabaseSync } from "node:sqlite";
const [path, begin] = Deno.args;
const db = new DatabaseSync(path);
db.exec(begin);
db.exec("INSERT INTO t(v) VALUES ('held')");
await Deno.stdout.write(new TextEncoder().encode("locked\\n"));
for await (const _ of Deno.stdin.readable) {}
db.exec("ROLLBACK");
db.close();
`;

export const holdLock: LockHolder = async (path, begin) => {
  const dir = dirname(path);
  const script = join(dir, "holder.ts");
  writeFileSync(script, HOLDER);
  // Deno.Command, not node:child_process: the latter copies the environment (needs --allow-env).
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", `--allow-read=${dir}`, `--allow-write=${dir}`, script, path, begin],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("locked")) {
    const { value, done } = await reader.read();
    if (done)
      throw new Error(`lock holder exited before locking: ${await new Response(child.stderr).text()}`);
    seen += value;
  }
  return async () => {
    await child.stdin.close();
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel();
    await child.status;
  };
};
