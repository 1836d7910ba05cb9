import { defineConfig } from "tsup";

export default defineConfig([
  {
    // The corpus is a library other packages import (CLI tests, the e2e chamber): typed.
    entry: { corpus: "src/corpus/index.ts" },
    format: ["esm"],
    dts: true,
    clean: true,
    target: "es2022",
    platform: "neutral",
    external: [/^@sessiondb\//],
  },
  {
    // Bench scripts, run as built JS on Node 20 (no TS), Node 24, Bun and Deno alike.
    entry: {
      run: "src/run.ts",
      check: "src/check.ts",
      runner: "src/runner.ts",
      "server-runner": "src/server-runner.ts",
      prepare: "src/proc/prepare.ts",
      "proc/open-store": "src/proc/open-store.ts",
      "proc/open-raw": "src/proc/open-raw.ts",
      "proc/fts-op": "src/proc/fts-op.ts",
      "proc/writer": "src/proc/writer.ts",
      "proc/backup-op": "src/proc/backup-op.ts",
      "proc/prune-op": "src/proc/prune-op.ts",
      "proc/import-rss": "src/proc/import-rss.ts",
      "proc/profile": "src/proc/profile.ts",
      "proc/pages": "src/proc/pages.ts",
      "proc/search-ab": "src/proc/search-ab.ts",
      "proc/bindings-cpu": "src/proc/bindings-cpu.ts",
      "proc/append-ab": "src/proc/append-ab.ts",
      "proc/stats-raw": "src/proc/stats-raw.ts",
    },
    format: ["esm"],
    dts: false,
    clean: false,
    target: "es2022",
    platform: "node",
    // tinybench is bundled so Deno and Bun need not resolve it; bindings and adapters stay
    // external and are imported only by the target that uses them.
    noExternal: ["tinybench"],
    external: [/^node:/, /^bun:/, "better-sqlite3", /^@sessiondb\//],
  },
]);
