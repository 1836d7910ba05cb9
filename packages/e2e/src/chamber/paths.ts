/** Where things are, resolved from this file so a fresh clone in any folder works (CI). */

import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** packages/e2e */
export const E2E_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The repository root. */
export const REPO_ROOT = resolve(E2E_ROOT, "../..");
/** The one role entry point every runtime runs. */
export const ROLE_MAIN = join(E2E_ROOT, "src/roles/main.mjs");
/**
 * The node_modules directory roles import the BUILT packages from. A scratch copy holding a
 * deliberately broken build can be swapped in with SESSIONDB_CHAMBER_MODULES.
 */
export const MODULES = resolve(process.env.SESSIONDB_CHAMBER_MODULES ?? join(REPO_ROOT, "node_modules"));
