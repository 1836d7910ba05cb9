/**
 * The Deno adapter's file-system host: core's shared host, loading `node:fs` on first use
 * (`lazyNodeFsHost`). Loading `node:fs` costs Deno 4–6 ms, and an open that finds its store
 * (the file's `stat` and write permission) is answered by Deno's own file API, so a process that
 * opens, reads and appends never pays it.
 */
import { lazyNodeFsHost } from "@sessiondb/core/driver";

/** The host the adapter passes to core. */
export const denoHost = lazyNodeFsHost;

/** Whether `path` is a directory (the drivers' `isDirectory`); false when it does not exist. */
export function isDirectoryPath(path: string): boolean {
  return denoHost.stat(path)?.kind === "directory";
}
