/** Opener: open writable, count, close, exit — the short-lived CLI command. */
import { openedIn } from "./lib/runtime.mjs";

export async function opener({ cfg, report, adapter }) {
  const started = Date.now();
  const store = adapter.open(cfg.store, { readOnly: cfg.readOnly === true });
  const count = store.messageCount();
  report.event("opened", {
    ms: Date.now() - started,
    ...openedIn(adapter, store),
    count,
    fts: store.ftsStatus().state,
  });
  store.close();
  report.event("closed", {});
}
