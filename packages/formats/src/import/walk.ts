/** The session files under a format's roots, sorted, as absolute and root-relative paths. */
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { LineFormat } from "../mapped.js";

export interface SessionFile {
  path: string;
  /** Relative to its root, `/`-separated (what the format's isSessionFile and mapper take). */
  relative: string;
}

async function* walk(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

/** Every session file under `roots` (a root may be one file: then its name is what is tested). */
export async function sessionFiles(format: LineFormat, roots: readonly string[]): Promise<SessionFile[]> {
  const found: SessionFile[] = [];
  for (const root of roots) {
    const info = await stat(root);
    if (info.isFile()) {
      found.push({ path: root, relative: root.split(sep).join("/") });
      continue;
    }
    for await (const path of walk(root)) {
      const rel = relative(root, path).split(sep).join("/");
      if (format.isSessionFile(rel)) found.push({ path, relative: rel });
    }
  }
  return found;
}
