/**
 * The torture chamber (spec §11): every episode in both arms — WAL, and DELETE chosen by the
 * real journal policy from a pinned vulnerable SQLite version. Run by vitest.chamber.config.ts.
 *
 * SESSIONDB_SEED=<n>        replay a run (the seed is printed, and is in every failure)
 * SESSIONDB_EPISODE=a,b     only these episodes (opt-in ones too);  SESSIONDB_ARM=wal|delete  only this arm
 * SESSIONDB_CHAMBER_SOAK=N  stretch every episode's durations N times
 */
import { describe, expect, test } from "vitest";
import type { Arm } from "./episode.js";
import { DEFAULT_EPISODES, EPISODE_NAMES, runEpisode } from "./episodes.js";
import { RUNTIMES } from "./runtimes.js";
import { masterSeed } from "./seed.js";

const master = masterSeed();
const only = process.env.SESSIONDB_EPISODE?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const arms = (process.env.SESSIONDB_ARM ? [process.env.SESSIONDB_ARM] : ["wal", "delete"]) as Arm[];
const episodes = only ? EPISODE_NAMES.filter((e) => only.includes(e)) : DEFAULT_EPISODES;

console.log(`[chamber] seed=${master} — replay with SESSIONDB_SEED=${master}`);
for (const r of Object.values(RUNTIMES)) {
  console.log(
    `[chamber] runtime ${r.id}: ${r.unavailable ? `SKIPPED (${r.unavailable})` : `${r.command} ${r.args.slice(0, -1).join(" ")}`}`,
  );
}

for (const arm of arms) {
  describe(`${arm} arm`, () => {
    for (const name of episodes) {
      test(`${arm} ${name}`, async () => {
        const result = await runEpisode(name, arm, master);
        const line = `[chamber] ${arm} ${name}: ${result.failures.length === 0 ? "ok" : `${result.failures.length - 1} failure(s)`} in ${(result.ms / 1000).toFixed(1)} s on ${result.runtimes.join("+")}${result.notes.length ? ` — ${result.notes.join("; ")}` : ""}`;
        console.log(line);
        expect(result.failures, result.failures.join("\n")).toEqual([]);
      });
    }
  });
}
