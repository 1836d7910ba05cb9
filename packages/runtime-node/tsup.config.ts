import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  target: "es2022",
  platform: "node",
  // Keep "node:fs", "node:module", … as written (tsup strips the prefix by default); the
  // node:sqlite specifier is a string passed to getBuiltinModule, which the bundler leaves alone.
  removeNodeProtocol: false,
  external: [/^node:/, "better-sqlite3", /^@sessiondb\//],
});
