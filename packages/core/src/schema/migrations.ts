/**
 * Version-gated data migrations. Each runs once per store, inside the init transaction, in
 * version order, and must be idempotent (a sibling may have run it; a crash rolls it back whole).
 */
import { exec, type Op, run } from "../engine/effects.js";
import { UPSERT_META_SQL } from "./ddl.js";
import { META_SCHEMA_VERSION } from "./definition.js";

export interface Migration {
  /** The schema version this migration brings the store to. */
  readonly version: number;
  /** What it does, for warnings and diagnostics. */
  readonly name: string;
  /** Apply it; must be safe to run again. */
  run(): Op<void>;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "recount session counters from messages",
    // Stores written before the counters existed got them from ADD COLUMN … DEFAULT 0.
    *run() {
      yield* exec(`UPDATE sessions SET
        message_count = (SELECT count(*) FROM messages m WHERE m.session_id = sessions.id),
        tool_call_count = (SELECT coalesce(sum(CASE WHEN json_valid(m.tool_calls) AND json_type(m.tool_calls) = 'array'
                                                 THEN json_array_length(m.tool_calls) ELSE 0 END), 0)
                           FROM messages m WHERE m.session_id = sessions.id),
        last_activity_at = coalesce(last_activity_at,
                           (SELECT max(m.timestamp) FROM messages m WHERE m.session_id = sessions.id))`);
    },
  },
];

/** The schema version recorded in the store (0 for a store that predates versioning). */
export function storedSchemaVersion(value: string | undefined): number {
  const version = Number(value ?? 0);
  return Number.isInteger(version) && version >= 0 ? version : 0;
}

/** Run every migration above `from`, recording each version as it completes. */
export function* runMigrations(from: number, migrations = MIGRATIONS): Op<number> {
  let version = from;
  for (const migration of migrations) {
    if (migration.version <= version) continue;
    yield* migration.run();
    version = migration.version;
    yield* run(UPSERT_META_SQL, META_SCHEMA_VERSION, String(version));
  }
  return version;
}
