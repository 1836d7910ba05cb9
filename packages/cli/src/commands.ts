/**
 * Every command by the words that select it, with the line the command list shows, and the
 * module that runs it, loaded only once the command is chosen: a short call (`stats`, `sessions
 * show`) parses its own module and what that imports, not the web app, the import formats or the
 * maintenance commands. The specifiers are literal, so a bundler makes each a chunk of its own
 * and Deno finds them in the module graph (no --allow-read needed to load them).
 */
import type { AnyCommand } from "./command.js";

export interface CommandEntry {
  /** Words that select it, e.g. "sessions list". */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The command's options, help and run, from its module. */
  load(): Promise<AnyCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "stats",
    summary: "sessions, messages by role, size on disk, journal mode, FTS state",
    load: async () => (await import("./commands/stats.js")).stats,
  },
  {
    name: "usage",
    summary: "token and cost totals, per day, model or source",
    load: async () => (await import("./commands/usage.js")).usage,
  },
  {
    name: "sessions list",
    summary: "sessions, newest first, with messages, tokens, cost and a preview",
    load: async () => (await import("./commands/sessions.js")).sessionsList,
  },
  {
    name: "sessions show",
    summary: "one session: usage, then its messages (tool output and system prompt folded unless --full)",
    load: async () => (await import("./commands/sessions.js")).sessionsShow,
  },
  {
    name: "sessions rename",
    summary: 'set a session\'s title ("" clears it)',
    load: async () => (await import("./commands/manage.js")).sessionsRename,
  },
  {
    name: "sessions archive",
    summary: "hide sessions from lists without deleting them (unarchive brings them back)",
    load: async () => (await import("./commands/manage.js")).sessionsArchive,
  },
  {
    name: "sessions unarchive",
    summary: "bring archived sessions back into lists",
    load: async () => (await import("./commands/manage.js")).sessionsUnarchive,
  },
  {
    name: "sessions delete",
    summary: "delete sessions with their messages and usage (asks first on a terminal)",
    load: async () => (await import("./commands/manage.js")).sessionsDelete,
  },
  {
    name: "prune",
    summary: "delete sessions inactive for longer than an age (--dry-run lists them)",
    load: async () => (await import("./commands/manage.js")).prune,
  },
  {
    name: "search",
    summary: "full-text search with highlighted snippets and the route taken",
    load: async () => (await import("./commands/search.js")).search,
  },
  {
    name: "export",
    summary: "write sessions as JSONL (importable), Markdown or HTML",
    load: async () => (await import("./commands/export.js")).exportCommand,
  },
  {
    name: "import",
    summary: "import a JSONL export (each session whole; bad sessions are left out)",
    load: async () => (await import("./commands/import.js")).importCommand,
  },
  {
    name: "doctor",
    summary: "health report: SQLite + WAL-reset verdict, journal, integrity, FTS, lock holder, permissions",
    load: async () => (await import("./commands/doctor.js")).doctor,
  },
  {
    name: "fts status",
    summary: "state of the full-text index (ready, backfilling with progress, stale, unavailable)",
    load: async () => (await import("./commands/fts.js")).ftsStatus,
  },
  {
    name: "fts rebuild",
    summary: "full FTS rebuild under the cross-process admission lock, in paced chunks, with progress",
    load: async () => (await import("./commands/fts.js")).ftsRebuild,
  },
  {
    name: "fts backfill",
    summary: "re-index in small resumable chunks, with a progress bar; Ctrl-C stops cleanly",
    load: async () => (await import("./commands/fts.js")).ftsBackfill,
  },
  {
    name: "fts optimize",
    summary: "compact the full-text index in short paced merge steps",
    load: async () => (await import("./commands/fts.js")).ftsOptimize,
  },
  {
    name: "check",
    summary:
      "integrity check: SQLite integrity_check and foreign_key_check, FTS5 integrity-check, index row counts",
    load: async () => (await import("./commands/check.js")).check,
  },
  {
    name: "backup",
    summary: "copy the store safely while other processes keep using it",
    load: async () => (await import("./commands/backup.js")).backup,
  },
  {
    name: "repair",
    summary: "bring a damaged store back with the least loss (offline; never writes the damaged file)",
    load: async () => (await import("./commands/repair.js")).repair,
  },
  {
    name: "vacuum",
    summary: "give the space of deleted sessions back to the disk, without stalling writers",
    load: async () => (await import("./commands/vacuum.js")).vacuum,
  },
  {
    name: "serve",
    summary: "a local web app to browse sessions, transcripts, search, usage and health",
    load: async () => (await import("./commands/serve.js")).serve,
  },
  {
    name: "demo",
    summary: "import sample sessions of each format into a temporary store and serve it",
    load: async () => (await import("./commands/demo.js")).demo,
  },
];
