/**
 * The fleet (see src/fleet/fleet.ts and the README): gateways on Node, Bun and Deno writing one
 * store on a libSQL server through its primary and a replica, under kills. Part of `npm test`;
 * skipped, saying why, where sqld cannot run or @sessiondb/libsql is not built.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sqldAvailability } from "@sessiondb/test-sqld";
import { expect, test } from "vitest";
import { MODULES } from "./chamber/paths.js";
import { masterSeed } from "./chamber/seed.js";

async function unavailable(): Promise<string | undefined> {
  const sqld = sqldAvailability();
  if (!sqld.ok) return sqld.reason;
  const dist = join(MODULES, "@sessiondb", "libsql", "dist", "index.js");
  if (!existsSync(dist)) return "@sessiondb/libsql is not built (npm run build)";
  const mod = (await import(pathToFileURL(dist).href)) as { openStore?: unknown };
  if (typeof mod.openStore !== "function") return "@sessiondb/libsql does not export openStore yet";
  return undefined;
}

const reason = await unavailable();
const master = masterSeed();
if (reason) console.log(`[fleet] skipped: ${reason}`);

test.skipIf(reason !== undefined)(
  `fleet on a libSQL server (seed ${master})${reason ? ` — skipped: ${reason}` : ""}`,
  async () => {
    // Loaded only when it runs: the fleet imports the libSQL client.
    const { runFleet } = await import("./fleet/fleet.js");
    const result = await runFleet(master);
    console.log(
      `[fleet] ${result.failures.length === 0 ? "ok" : `${result.failures.length - 1} failure(s)`} in ${(result.ms / 1000).toFixed(1)} s on ${result.runtimes.join("+")} — ${result.notes.join("; ")}`,
    );
    expect(result.failures, result.failures.join("\n")).toEqual([]);
  },
  240_000,
);
