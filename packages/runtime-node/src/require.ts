/**
 * `require` relative to this package, made when a driver first loads its binding. `node:module`
 * is taken with `process.getBuiltinModule` (Node ≥ 20.16, the adapter's minimum) instead of an
 * import: an ESM import of a built-in builds its namespace, and `node:module`'s loads the source
 * map support with it, about 1 ms of every process that loads the adapter.
 */
import type * as NodeModule from "node:module";
import { DriverUnavailableError } from "@sessiondb/core";

/** A `require` that resolves from this package (better-sqlite3 is its dependency). Without
 * getBuiltinModule (Node < 20.16) a DriverUnavailableError says which Node to run, as the host's
 * does (core's host/fs-host.ts). */
export function packageRequire(): NodeJS.Require {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const module = getBuiltin?.call(process, "node:module") as typeof NodeModule | undefined;
  if (!module) {
    throw new DriverUnavailableError(
      `sessiondb needs process.getBuiltinModule, which this runtime lacks (this is Node ${process.versions.node}): run Node ≥ 20.16 (or ≥ 22.3).`,
    );
  }
  return module.createRequire(import.meta.url);
}
