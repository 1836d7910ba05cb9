#!/usr/bin/env node
/**
 * CI check: every public package packs cleanly — only its built dist/, README.md, package.json
 * and LICENSE (and, in @sessiondb/core, the user docs: docs/*.md, every one of the repository's),
 * no test files; its README links only to absolute URLs or its own anchors, and every
 * `@sessiondb/core/docs/<name>.md` it names is in core's package; its
 * package.json has the license and keywords npm shows; and its type declarations import only
 * what a consumer has installed (its dependencies, required peers and node: modules), so `skipLibCheck: false`
 * compiles without extra @types packages.
 * Exits 1 with one line per problem.
 *
 *   node scripts/check-pack.mjs
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const PUBLIC = [
  "@sessiondb/core",
  "@sessiondb/conformance",
  "@sessiondb/node",
  "@sessiondb/bun",
  "@sessiondb/deno",
  "@sessiondb/libsql",
  "@sessiondb/formats",
  "@sessiondb/ai-sdk",
  "@sessiondb/openai-agents",
  "@sessiondb/claude-agent-sdk",
  "sessiondb",
];
const manifests = new Map(
  readdirSync("packages").map((dir) => {
    const manifest = JSON.parse(readFileSync(join("packages", dir, "package.json"), "utf8"));
    return [manifest.name, { dir: join("packages", dir), manifest }];
  }),
);
const ALLOWED = /^(dist\/.+\.(js|d\.ts)|README\.md|package\.json|LICENSE)$/;
/** The user docs core carries for every package (copied from docs/ by its build). */
const DOCS_PACKAGE = "@sessiondb/core";
const DOC_FILE = /^docs\/[A-Za-z-]+\.md$/;
const docs = readdirSync("docs")
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);
const problems = [];

const packs = JSON.parse(
  execFileSync("npm", ["pack", "--dry-run", "--json", ...PUBLIC.flatMap((name) => ["-w", name])], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }),
);
for (const pack of packs) {
  const files = pack.files.map((file) => file.path);
  const carriesDocs = pack.name === DOCS_PACKAGE;
  for (const file of files) {
    if (!ALLOWED.test(file) && !(carriesDocs && DOC_FILE.test(file)))
      problems.push(`${pack.name}: unexpected file in the package: ${file}`);
    if (/\.test\./.test(file)) problems.push(`${pack.name}: test file in the package: ${file}`);
  }
  if (carriesDocs)
    for (const doc of docs)
      if (!files.includes(doc)) problems.push(`${pack.name}: ${doc} is not in the package`);
  if (!files.includes("README.md")) problems.push(`${pack.name}: no README.md`);
  if (!files.includes("LICENSE")) problems.push(`${pack.name}: no LICENSE`);
  // npm and JSR show the README away from the repository: a relative link leads nowhere there.
  const readme = readFileSync(join(manifests.get(pack.name).dir, "README.md"), "utf8");
  for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (!/^(https?:\/\/|#)/.test(target))
      problems.push(`${pack.name}: README.md links to "${target}", which is not there on npm`);
  }
  // Docs are named by their path in the installed core package instead; each must exist.
  for (const [, doc] of readme.matchAll(/@sessiondb\/core\/(docs\/[\w.-]+)/g)) {
    if (!docs.includes(doc))
      problems.push(`${pack.name}: README.md names @sessiondb/core/${doc}, which is not shipped`);
  }
  const { dir, manifest } = manifests.get(pack.name);
  if (manifest.license !== "MIT") problems.push(`${pack.name}: license is not "MIT"`);
  if (!manifest.keywords?.length) problems.push(`${pack.name}: no keywords`);
  // A required peer dependency (a binding's framework) is installed wherever the package is.
  const requiredPeers = Object.keys(manifest.peerDependencies ?? {}).filter(
    (name) => !manifest.peerDependenciesMeta?.[name]?.optional,
  );
  const installed = new Set([...Object.keys(manifest.dependencies ?? {}), ...requiredPeers]);
  for (const file of files.filter((f) => f.endsWith(".d.ts"))) {
    // Comments hold examples ("import … from") that are not imports.
    const text = readFileSync(join(dir, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    for (const [, specifier] of text.matchAll(/(?:from|import\()\s*["']([^"'.][^"']*)["']/g)) {
      const name = specifier.startsWith("@")
        ? specifier.split("/").slice(0, 2).join("/")
        : specifier.split("/")[0];
      if (!specifier.startsWith("node:") && !installed.has(name))
        problems.push(
          `${pack.name}: ${file} imports types from "${specifier}", which a consumer may not have`,
        );
    }
  }
  if (!files.some((file) => file.startsWith("dist/"))) problems.push(`${pack.name}: no dist/ (build first)`);
}
if (packs.length !== PUBLIC.length)
  problems.push(`expected ${PUBLIC.length} packages, packed ${packs.length}`);

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`npm pack: ${packs.map((p) => `${p.name} (${p.files.length} files)`).join(", ")}`);
