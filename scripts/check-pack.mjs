#!/usr/bin/env node
/**
 * CI check: every public package packs cleanly — only its built dist/, README.md and
 * package.json (plus LICENSE if present), a built entry for every export, and no test files.
 * Exits 1 with one line per problem.
 *
 *   node scripts/check-pack.mjs
 */
import { execFileSync } from "node:child_process";

const PUBLIC = ["@sessiondb/core", "@sessiondb/node", "@sessiondb/bun", "@sessiondb/deno", "sessiondb"];
const ALLOWED = /^(dist\/.+\.(js|d\.ts)|README\.md|package\.json|LICENSE)$/;
const problems = [];

const packs = JSON.parse(
  execFileSync("npm", ["pack", "--dry-run", "--json", ...PUBLIC.flatMap((name) => ["-w", name])], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }),
);
for (const pack of packs) {
  const files = pack.files.map((file) => file.path);
  for (const file of files) {
    if (!ALLOWED.test(file)) problems.push(`${pack.name}: unexpected file in the package: ${file}`);
    if (/\.test\./.test(file)) problems.push(`${pack.name}: test file in the package: ${file}`);
  }
  if (!files.includes("README.md")) problems.push(`${pack.name}: no README.md`);
  if (!files.some((file) => file.startsWith("dist/"))) problems.push(`${pack.name}: no dist/ (build first)`);
}
if (packs.length !== PUBLIC.length)
  problems.push(`expected ${PUBLIC.length} packages, packed ${packs.length}`);

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`npm pack: ${packs.map((p) => `${p.name} (${p.files.length} files)`).join(", ")}`);
