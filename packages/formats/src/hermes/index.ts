/**
 * Hermes Agent's sessions (`~/.hermes/state.db`, or `$HERMES_HOME/state.db`) as a
 * DatabaseFormat: read.ts lists and reads them, rows.ts maps their records.
 */
import { join } from "node:path";
import type { DatabaseFormat } from "../mapped.js";
import { hermesSessions } from "./read.js";
import { HermesRows } from "./rows.js";
import { HERMES_FORMAT } from "./session.js";

/** The Hermes format: `sessiondb import --from hermes`. */
export const hermes: DatabaseFormat = {
  kind: "database",
  name: HERMES_FORMAT,
  defaultRoots: [".hermes/state.db"],
  fileName: "state.db",
  // Hermes's home is HERMES_HOME when set (hermes_constants.get_hermes_home), else ~/.hermes.
  rootsFromEnv: (env) => {
    const home = env.HERMES_HOME?.trim();
    return home ? [join(home, "state.db")] : undefined;
  },
  sessions: hermesSessions,
  mapper: () => new HermesRows(),
};
