/**
 * Entry point of every chamber role, on every runtime: `<runtime> main.mjs` with the role's
 * config in SESSIONDB_ROLE. Plain JavaScript importing the built packages, so one file runs on
 * Node 20, Node 24, Bun and Deno alike.
 */
import { backfill } from "./backfill.mjs";
import { backup } from "./backup.mjs";
import { checker } from "./checker.mjs";
import { churn } from "./churn.mjs";
import { corruptor } from "./corruptor.mjs";
import { fts } from "./fts.mjs";
import { importer } from "./importer.mjs";
import { readConfig, runRole } from "./lib/runtime.mjs";
import { opener } from "./opener.mjs";
import { pruner } from "./pruner.mjs";
import { reader } from "./reader.mjs";
import { repair } from "./repair.mjs";
import { salvage } from "./salvage.mjs";
import { writer } from "./writer.mjs";

const ROLES = {
  backfill,
  backup,
  checker,
  churn,
  corruptor,
  fts,
  importer,
  opener,
  pruner,
  reader,
  repair,
  salvage,
  writer,
};

const role = ROLES[readConfig().role];
if (!role) throw new Error(`unknown role ${JSON.stringify(readConfig().role)}`);
await runRole(role);
