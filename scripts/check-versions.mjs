#!/usr/bin/env node
/**
 * CI check: the packages published to both npm and JSR agree. For every member of the root
 * deno.json workspace: package.json, deno.json and jsr.json carry the same name and version,
 * and the JSR exports are exactly the npm exports (minus ./package.json), each pointing at the
 * TypeScript source of the file npm ships built. Exits 1 with one line per problem.
 *
 *   node scripts/check-versions.mjs
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const read = (path) => JSON.parse(readFileSync(path, "utf8"));
const problems = [];

const workspace = read(join(root, "deno.json")).workspace ?? [];
if (workspace.length === 0) problems.push("deno.json: no workspace members");

for (const member of workspace) {
  const dir = join(root, member);
  const npm = read(join(dir, "package.json"));
  const manifests = ["deno.json", "jsr.json"].filter((file) => existsSync(join(dir, file)));
  if (!manifests.includes("jsr.json")) problems.push(`${member}: no jsr.json`);
  const npmExports = Object.keys(npm.exports ?? {})
    .filter((key) => key !== "./package.json")
    .sort();
  for (const file of manifests) {
    const jsr = read(join(dir, file));
    const where = `${member}/${file}`;
    if (jsr.name !== npm.name) problems.push(`${where}: name ${jsr.name} != package.json ${npm.name}`);
    if (jsr.version !== npm.version)
      problems.push(`${where}: version ${jsr.version} != package.json ${npm.version}`);
    const exports = typeof jsr.exports === "string" ? { ".": jsr.exports } : (jsr.exports ?? {});
    const jsrExports = Object.keys(exports).sort();
    if (JSON.stringify(jsrExports) !== JSON.stringify(npmExports)) {
      problems.push(
        `${where}: exports ${jsrExports.join(", ")} != package.json exports ${npmExports.join(", ")}`,
      );
    }
    for (const [key, target] of Object.entries(exports)) {
      if (!existsSync(join(dir, target)))
        problems.push(`${where}: export ${key} -> ${target} does not exist`);
    }
  }
  // Workspace siblings must depend on each other's current version.
  for (const [name, range] of Object.entries(npm.dependencies ?? {})) {
    for (const other of workspace) {
      const sibling = read(join(root, other, "package.json"));
      if (sibling.name === name && range !== sibling.version) {
        problems.push(
          `${member}/package.json: depends on ${name}@${range}, workspace has ${sibling.version}`,
        );
      }
    }
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-versions: ${problem}`);
  process.exit(1);
}
console.log(`check-versions: npm and JSR agree for ${workspace.join(", ")}`);
