/**
 * A store file this process may not write. Root ignores permission bits, so when the tests run as
 * root the probe runs as the unprivileged user "nobody" (setpriv); otherwise as ourselves.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { availableDriverNames } from "./drivers-here.js";

const PROBE = new URL("./fixtures/permission-probe.mjs", import.meta.url).pathname;
const BUILT = new URL("../dist/index.js", import.meta.url).pathname;
const [driver] = availableDriverNames();
const asRoot = process.getuid?.() === 0;
const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!existsSync(BUILT) || !driver || (asRoot && !setpriv))(
  "a store file that is not writable (needs the build; as root, needs setpriv)",
  () => {
    function probe(dirMode: number): { result: Record<string, unknown>; db: string; before: Buffer } {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-perm-"));
      dirs.push(dir);
      const db = join(dir, "state.db");
      const store = openStore(db, { driver });
      store.createSession({ id: "s", source: "test" });
      store.appendMessage("s", { role: "user", content: "kept" });
      store.close();
      const before = readFileSync(db);
      mkdirSync(join(dir, "locked"), { mode: 0o555 });
      chmodSync(db, 0o444);
      chmodSync(dir, dirMode);
      const command = asRoot
        ? [
            setpriv as string,
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            process.execPath,
            PROBE,
            db,
            driver as string,
          ]
        : [process.execPath, PROBE, db, driver as string];
      const run = spawnSync(command[0] as string, command.slice(1), { encoding: "utf8", timeout: 60_000 });
      expect(run.status, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout.trim().split("\n").at(-1) as string);
      if (asRoot) expect(result.uid).toBe(65534);
      return { result, db, before };
    }

    it(`[${driver}] a writable open is refused with STORE_READONLY; read-only works; nothing changes`, () => {
      // The directory is writable (SQLite may create -wal/-shm there); the file is not.
      const { result, db, before } = probe(0o777);
      expect(result.writable).toBe("STORE_READONLY");
      expect(result.message).toMatch(/readOnly: true/);
      expect(result.readOnly, String(result.readOnlyMessage)).toBeUndefined();
      expect(result.count).toBe(1);
      expect(result.append).toBe("STORE_READONLY");
      expect(readFileSync(db).equals(before)).toBe(true);
    });

    it(`[${driver}] a backup into a folder this process may not write is refused as the destination's (not-permitted); nothing is left there`, () => {
      const { result, db } = probe(0o777);
      expect(result.backup).toBe("BACKUP_DESTINATION_REFUSED");
      expect(result.backupReason).toBe("not-permitted");
      expect(readdirSync(join(db, "..", "locked"))).toEqual([]);
    });

    it(`[${driver}] a closed WAL store in a directory we cannot write: read-only open explains why it cannot`, () => {
      // SQLite needs the -wal/-shm files for a read-only WAL open; with no writer running they
      // do not exist, and here they cannot be created.
      const { result, db, before } = probe(0o755);
      expect(result.writable).toBe("STORE_READONLY");
      expect(result.readOnly).toBe("STORE_OPEN_FAILED");
      expect(result.readOnlyMessage).toMatch(/-shm/);
      expect(readFileSync(db).equals(before)).toBe(true);
    });
  },
);
