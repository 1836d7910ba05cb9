/**
 * The adapter's host (core's `lazyNodeFsHost`): on Deno the open path's two questions, a path's
 * kind and whether the store file is writable, come from Deno's own file API. `canWrite` reads
 * the write bit that applies to this process — the owner's, the group's or everyone's, picked by
 * uid and gid as Deno's `node:fs` `accessSync` does (root included: Deno does not ask the
 * kernel) — and without --allow-sys, which uid() needs, any write bit. The read-only mount case
 * is in the conformance suite (files).
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

const FIXTURE = new URL("./fixtures/host-answers.ts", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "sessiondb-deno-host-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const writable = join(dir, "writable.db");
const ownerReadOnly = join(dir, "owner-read-only.db");
const othersWrite = join(dir, "others-write.db");
const folder = join(dir, "folder");
const missing = join(dir, "missing.db");
writeFileSync(writable, "");
chmodSync(writable, 0o600);
writeFileSync(ownerReadOnly, "");
chmodSync(ownerReadOnly, 0o444);
// Not writable by its owner (this process), writable by everyone else.
writeFileSync(othersWrite, "");
chmodSync(othersWrite, 0o466);
mkdirSync(folder);
const paths = [writable, ownerReadOnly, othersWrite, folder, missing];

async function answers(permissions: string[]): Promise<unknown> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...permissions, FIXTURE, ...paths],
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

describe("the Deno adapter's host", () => {
  it("with --allow-sys: the owner's write bit decides for the owner", async () => {
    const read = `--allow-read=${dir}`;
    const write = `--allow-write=${dir}`;
    assert.deepEqual(await answers([read, write, "--allow-sys"]), [
      { kind: "file", canWrite: true },
      { kind: "file", canWrite: false },
      { kind: "file", canWrite: false },
      { kind: "directory", canWrite: true },
      { kind: "missing", canWrite: false },
    ]);
  });

  it("without --allow-sys: any write bit counts (SQLite has the last word)", async () => {
    const read = `--allow-read=${dir}`;
    const write = `--allow-write=${dir}`;
    assert.deepEqual(await answers([read, write]), [
      { kind: "file", canWrite: true },
      { kind: "file", canWrite: false },
      { kind: "file", canWrite: true },
      { kind: "directory", canWrite: true },
      { kind: "missing", canWrite: false },
    ]);
  });
});
