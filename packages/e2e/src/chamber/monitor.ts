/**
 * Watching roles from outside, through /proc:
 * - descriptors: every ~100 ms each live role's /proc/<pid>/fd is read; a descriptor whose
 *   target is a store file (the database, -wal, -shm, -journal) marked "(deleted)", and still
 *   is 250 ms later, is recorded — a process holding a deleted database keeps writing into a
 *   file nobody will ever read. The
 *   total and store-file descriptor counts are kept per role for the churn/reader bounds.
 * - the admission lock: every ~10 ms /proc/locks is read for POSIX write locks on the lock file
 *   (`<db>.fts-rebuild.lock`); SQLite's EXCLUSIVE lock is a write lock on the shared-lock range,
 *   so this shows, from the kernel's side, which process held the rebuild admission when.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import type { RoleProcess } from "./role-process.js";

/** How long a descriptor on a deleted store file must persist to count (see #confirmDeleted). */
const CONFIRM_DELETED_MS = 250;

/** SQLite's lock bytes (os_unix.c): the shared range starts at PENDING_BYTE + 2. */
const SHARED_FIRST = 0x40000000 + 2;

export interface FdSample {
  at: number;
  total: number;
  store: number;
}

export class Monitor {
  readonly #storePath: string;
  readonly #lockPath: string;
  readonly #roles: () => RoleProcess[];
  readonly fds = new Map<string, FdSample[]>();
  readonly deleted: Array<{ role: string; pid: number; fd: string; target: string; at: number }> = [];
  /** Kernel-observed admission holders: (time, pid) samples. */
  readonly lockHolders: Array<{ at: number; pids: number[] }> = [];
  #timers: NodeJS.Timeout[] = [];
  #lockIno: string | undefined;

  constructor(storePath: string, roles: () => RoleProcess[]) {
    this.#storePath = storePath;
    this.#lockPath = `${storePath}.fts-rebuild.lock`;
    this.#roles = roles;
  }

  /** Sample descriptors every 100 ms. */
  start(): void {
    this.#timers.push(setInterval(() => this.sampleFds(), 100));
  }

  /** Also sample /proc/locks every 10 ms (rebuild episodes). */
  watchLocks(): void {
    this.#timers.push(setInterval(() => this.#sampleLocks(), 10));
  }

  stop(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
  }

  #isStoreFile(target: string): boolean {
    const base = target.endsWith(" (deleted)") ? target.slice(0, -" (deleted)".length) : target;
    return base === this.#storePath || [`-wal`, `-shm`, `-journal`].some((s) => base === this.#storePath + s);
  }

  /** One pass over every live role's descriptors. */
  sampleFds(): void {
    const at = Date.now();
    for (const role of this.#roles()) {
      if (!role.alive) continue;
      let entries: string[];
      try {
        entries = readdirSync(`/proc/${role.pid}/fd`);
      } catch {
        continue; // exited meanwhile
      }
      let store = 0;
      for (const fd of entries) {
        let target: string;
        try {
          target = readlinkSync(`/proc/${role.pid}/fd/${fd}`);
        } catch {
          continue;
        }
        if (!this.#isStoreFile(target)) continue;
        store++;
        if (target.endsWith(" (deleted)")) this.#confirmDeleted(role, fd, target, at);
      }
      const list = this.fds.get(role.name) ?? [];
      list.push({ at, total: entries.length, store });
      this.fds.set(role.name, list);
    }
  }

  /**
   * A connection that closes last unlinks `-wal`/`-shm` and closes them a moment later, so a
   * sample can land in between (seen once in ~6 chamber runs on 2 loaded cores). Only a
   * descriptor that still points at the same deleted file `CONFIRM_DELETED_MS` later counts.
   */
  #confirmDeleted(role: RoleProcess, fd: string, target: string, at: number): void {
    const timer = setTimeout(() => {
      let now: string | undefined;
      try {
        now = readlinkSync(`/proc/${role.pid}/fd/${fd}`);
      } catch {
        return; // closed, or the process exited
      }
      if (now === target) this.deleted.push({ role: role.name, pid: role.pid, fd, target, at });
    }, CONFIRM_DELETED_MS);
    this.#timers.push(timer);
  }

  #sampleLocks(): void {
    if (!this.#lockIno) {
      try {
        const st = statSync(this.#lockPath);
        // /proc/locks prints MAJOR:MINOR:INODE with the device in hex.
        const major = Math.floor(st.dev / 256)
          .toString(16)
          .padStart(2, "0");
        const minor = (st.dev % 256).toString(16).padStart(2, "0");
        this.#lockIno = `${major}:${minor}:${st.ino}`;
      } catch {
        // No lock file (yet): nobody can hold the lock, and that is a sample too — a rebuild
        // that runs while the file does not even exist ran without admission.
        this.lockHolders.push({ at: Date.now(), pids: [] });
        return;
      }
    }
    let text: string;
    try {
      text = readFileSync("/proc/locks", "utf8");
    } catch {
      return;
    }
    const pids: number[] = [];
    for (const line of text.split("\n")) {
      const f = line.trim().split(/\s+/);
      // "1: POSIX  ADVISORY  WRITE 123 fe:00:456 1073741826 1073742335"
      if (f[1] !== "POSIX" || f[3] !== "WRITE" || f[5] !== this.#lockIno) continue;
      if (Number(f[6]) <= SHARED_FIRST && (f[7] === "EOF" || Number(f[7]) >= SHARED_FIRST))
        pids.push(Number(f[4]));
    }
    this.lockHolders.push({ at: Date.now(), pids });
  }
}
