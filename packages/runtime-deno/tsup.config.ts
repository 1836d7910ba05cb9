import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  // node:sqlite must reach Deno by its full name; core is a dependency, not bundled.
  external: [/^node:/, /^@sessiondb\//],
  // tsup strips "node:" by default; Deno needs the full names, and the test over dist/ checks them.
  removeNodeProtocol: false,
});
