/**
 * The Node adapter's file-system host: core's shared host, taking `node:fs` and `node:os` with
 * `process.getBuiltinModule` when first called (Node ≥ 20.16) instead of importing them. An ESM
 * import of a built-in builds its module namespace, which runs every lazy getter it has
 * (`fs.promises`, the stream classes): 1.5 ms on Node 20 and 2.5 ms on Node 24 for `node:fs`,
 * paid by every short process that loads the adapter. `getBuiltinModule` hands over the module
 * object as it is.
 */
import { lazyNodeFsHost } from "@sessiondb/core/driver";

/** The host the adapter passes to core. */
export const nodeHost = lazyNodeFsHost;

/** Whether `path` is a directory (the drivers' `isDirectory`); false when it does not exist. */
export function isDirectoryPath(path: string): boolean {
  return nodeHost.stat(path)?.kind === "directory";
}
