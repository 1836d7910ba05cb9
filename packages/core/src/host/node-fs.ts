/**
 * `@sessiondb/core/host`: the shared `node:fs` host (fs-host.ts) over statically imported
 * `node:fs` and `node:os`, which every runtime supports; the Node and Bun adapters use it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { createFsHost } from "./fs-host.js";
import type { Host } from "./host.js";

/** Whether `path` is a directory (a driver's `isDirectory`); false when it does not exist. */
export function isDirectoryPath(path: string): boolean {
  return fs.statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The shared `node:fs` host. */
export const nodeFsHost: Host = createFsHost({ fs: () => fs, os: () => os });
