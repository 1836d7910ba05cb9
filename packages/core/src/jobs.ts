/**
 * The store's jobs an open, a read, a write or a search never runs — import, delete, vacuum and
 * backup — gathered into one module that on-demand.ts loads on the first call of one of them, so
 * that a short process (a CLI call, a hook, cron) does not parse them. Nothing else may import
 * this module statically, or the build would fold it back into the code every open loads.
 */
export { backupOptions, backupStore } from "./backup/backup.js";
export { vacuum } from "./maintenance/vacuum.js";
export { deleteSessions } from "./store/delete-sessions.js";
export { importSessions } from "./store/import-sessions.js";
