#!/usr/bin/env node
/**
 * Build step: copy the repository's user documentation (docs/*.md) into this package's docs/
 * folder, so the npm tarball carries it and every package README can name a path that exists
 * in an installed package (node_modules/@sessiondb/core/docs/…). The copy is generated: the
 * repository's docs/ stays the one place to edit.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(pkg, "..", "..", "docs");
const target = join(pkg, "docs");

rmSync(target, { recursive: true, force: true });
mkdirSync(target);
for (const name of readdirSync(source).filter((file) => file.endsWith(".md"))) {
  copyFileSync(join(source, name), join(target, name));
}
