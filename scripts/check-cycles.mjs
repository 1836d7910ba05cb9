#!/usr/bin/env node
/**
 * CI check: no import circles inside any package. For every `packages/<name>/src`, every
 * relative import between its source files is an arrow — static imports and re-exports, type-only
 * ones included (a module that needs another's types knows about it as much as one that calls
 * it: a circle through types is still two modules that cannot be read or moved apart), and
 * dynamic `import()`s (loading on demand changes when a module loads, not what it depends on).
 * Tests (`*.test.ts`) are left out: they sit beside the code they test and import freely.
 * Prints each package's module and arrow counts, then each circle found; exits 1 on any circle.
 *
 *   node scripts/check-cycles.mjs [--quiet] [--members]   (--members: every module of a circle)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const quiet = process.argv.includes("--quiet");

/** Every import specifier of a module's text, comments left out (examples in doc comments). */
function specifiers(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^;"'`]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const [, spec] of code.matchAll(pattern)) found.push(spec);
  return found;
}

/** A relative specifier → the source file it names (`.js` written, `.ts` on disk), or null. */
function target(from, spec) {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    `${base}.ts`,
    join(base, "index.ts"),
  ];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile()) ?? null;
}

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.(ts|mts|mjs|js)$/.test(entry.name) && !/\.test\.[mc]?[tj]s$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The strongly connected components with more than one module (or a module importing itself),
 * by Tarjan's algorithm, iteratively (a deep import chain must not overflow the stack). */
function circles(graph) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  for (const start of graph.keys()) {
    if (indexOf.has(start)) continue;
    const work = [[start, 0]];
    indexOf.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const next = [...(graph.get(node) ?? [])];
      if (i < next.length) {
        frame[1]++;
        const to = next[i];
        if (!indexOf.has(to)) {
          indexOf.set(to, index);
          low.set(to, index++);
          stack.push(to);
          onStack.add(to);
          work.push([to, 0]);
        } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), indexOf.get(to)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === indexOf.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
      }
    }
  }
  return found;
}

/** One shortest loop through `component`, to show a reader where the circle runs. */
function loopIn(graph, component) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [node];
        for (let at = previous.get(node); at !== null; at = previous.get(at)) path.push(at);
        return [...path.reverse(), start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return component;
}

let total = 0;
const packages = readdirSync(join(root, "packages")).filter((name) =>
  existsSync(join(root, "packages", name, "src")),
);
for (const name of packages) {
  const src = join(root, "packages", name, "src");
  const graph = new Map();
  let arrows = 0;
  for (const file of sources(src)) {
    const to = new Set();
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      const hit = target(file, spec);
      if (hit && hit.startsWith(src) && !/\.test\.[mc]?[tj]s$/.test(hit)) to.add(hit);
    }
    arrows += to.size;
    graph.set(file, to);
  }
  const found = circles(graph);
  total += found.length;
  if (!quiet || found.length > 0)
    console.log(`check-cycles: ${name}: ${graph.size} modules, ${arrows} arrows, ${found.length} circles`);
  for (const component of found) {
    const loop = loopIn(graph, component).map((file) => relative(src, file));
    if (process.argv.includes("--members"))
      console.log(`  members: ${component.map((f) => relative(src, f)).join(", ")}`);
    console.log(`  circle of ${component.length}: ${loop.join(" → ")}`);
  }
}
if (total > 0) {
  console.error(`check-cycles: ${total} import circle${total === 1 ? "" : "s"}; layers must point one way`);
  process.exit(1);
}
console.log("check-cycles: no import circles");
