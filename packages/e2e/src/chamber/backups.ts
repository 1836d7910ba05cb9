/**
 * Backups taken during an episode (the `backup` role) and what each must be afterwards: restored
 * — copied to a fresh path and opened writable, as a user would — it satisfies every invariant
 * for the rows it holds. The checker requires exactly the appends acknowledged before the
 * backup began (the ledger cut the role recorded), allows the later and in-flight ones at most
 * once and whole, and checks prefix, bodies, phantoms, counters, integrity and search. A backup
 * that never reported finishing (its role was killed, or it threw) left nothing at its
 * destination, or — killed between the rename and the report — a whole backup, checked too.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Episode } from "./episode.js";
import type { RoleProcess } from "./role-process.js";
import { availableRuntimes } from "./runtimes.js";

function backupsDir(ep: Episode): string {
  return join(ep.dir, "backups");
}

/** Start a backup role on a seeded runtime: `count` backups, one every minPace–maxPace ms. */
export function startBackups(ep: Episode, params: Record<string, unknown> = {}): RoleProcess | undefined {
  const runtimes = availableRuntimes();
  if (runtimes.length === 0) return undefined;
  mkdirSync(backupsDir(ep), { recursive: true, mode: 0o777 });
  return ep.spawn("backup", ep.rng.pick(runtimes), {
    backupsDir: backupsDir(ep),
    reportsDir: ep.reportsDir,
    ...params,
  });
}

/** Restore and check every backup the episode's backup roles finished (every role is stopped). */
export async function checkBackups(ep: Episode): Promise<void> {
  let checked = 0;
  let unfinished = 0;
  const methods = new Set<string>();
  for (const role of ep.roles.filter((r) => r.role === "backup")) {
    const events = role.events();
    for (const begin of events.filter((e) => e.t === "backup_begin")) {
      const dest = String(begin.dest);
      const done = events.find((e) => e.t === "backup_done" && e.n === begin.n);
      // Killed (or refused) before it reported: the destination is absent, or — killed between
      // the rename and the report — a whole backup, checked like the others.
      if (!done) unfinished++;
      if (!done && !existsSync(dest)) continue;
      if (done) methods.add(`${role.runtime.id}:${String(done.method)}`);
      if (done && done.journalMode !== ep.arm)
        ep.fail(
          `${role.name}: backup ${dest} is in journal mode ${String(done.journalMode)}, the arm is ${ep.arm}`,
        );
      if (existsSync(`${dest}-wal`)) ep.fail(`${role.name}: backup ${dest} has a -wal beside it`);
      const label = `backup-${role.name}-${String(begin.n)}`;
      const restored = join(ep.dir, "restored", label, "state.db");
      mkdirSync(join(ep.dir, "restored", label), { recursive: true, mode: 0o777 });
      copyFileSync(dest, restored);
      const opener = ep.spawn("opener", ep.pickRuntime(), { store: restored, stopFile: undefined });
      if (!(await opener.waitExit(60_000))) {
        opener.kill9();
        ep.fail(`${label}: opening the restored copy did not finish in 60 s`);
        continue;
      }
      const verdict = await ep.check({
        store: restored,
        cut: begin.cut as Record<string, number>,
        label,
        searchSample: 20,
      });
      if (verdict.stats.required === 0)
        ep.note(`${label}: no append was acknowledged before it began (its check requires nothing)`);
      checked++;
    }
  }
  // A temporary file is `<dest>.tmp-<pid>-…`: only a backup killed mid-copy may leave one.
  const killed = new Set(ep.roles.filter((r) => r.killedOnPurpose).map((r) => r.pid));
  let leftovers = 0;
  for (const file of existsSync(backupsDir(ep)) ? readdirSync(backupsDir(ep)) : []) {
    const pid = /\.tmp-(\d+)-/.exec(file)?.[1];
    if (pid === undefined) continue;
    leftovers++;
    if (!killed.has(Number(pid))) ep.fail(`a backup that was not killed left its temporary file ${file}`);
  }
  ep.note(
    `backups: ${checked} restored and checked (${[...methods].join(", ")}), ${unfinished} unfinished (${leftovers} temporary files left by killed backups)`,
  );
}
