/**
 * Reads of TEXT columns, whole on every binding. Some bindings (Deno's node:sqlite, @db/sqlite,
 * libSQL's native binding) hand a TEXT value over only up to its first NUL, though the whole
 * value is stored. On those, the columns can be selected through a guard (rows.ts) that hands a
 * value holding a NUL over as bytes — but the guard scans every value read, which made a resume
 * there cost about twice the bare read.
 *
 * A store created by this build carries a mark (META_TEXT_WITHOUT_NUL) for as long as none of
 * its TEXT holds a NUL; triggers remove it in the transaction that writes the first such value,
 * whoever writes it, and nothing writes it again. So a read selects plainly and then asks for the
 * mark: found after the read, it was there when the read ran, and the values read are whole.
 * Once a store is found without it (a NUL was written, or the store predates the mark), its
 * reads take the guard at once.
 */
import type { Row, SqlValue } from "../driver.js";
import { all, get, type Op, readsTextWhole } from "../engine/effects.js";
import { policy } from "../policy/calls.js";
import { TEXT_WITHOUT_NUL_SQL } from "../schema/ddl.js";

/** The rows of the statement `sql(plain)` builds, with every TEXT column read whole: `plain`
 * selects the columns as they are, otherwise through the guard. */
export function* selectText(sql: (plain: boolean) => string, ...params: SqlValue[]): Op<Row[]> {
  if (yield* readsTextWhole()) return yield* all(sql(true), ...params);
  const state = yield* policy();
  if (!state.textMayHoldNul) {
    const rows = yield* all(sql(true), ...params);
    if ((yield* get(TEXT_WITHOUT_NUL_SQL)) !== undefined) return rows;
    state.textMayHoldNul = true;
  }
  return yield* all(sql(false), ...params);
}
