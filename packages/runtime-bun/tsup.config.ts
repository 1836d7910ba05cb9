import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  // bun:sqlite must reach Bun by its full name; core is a dependency, not bundled.
  external: [/^bun:/, /^node:/, /^@sessiondb\//],
  // tsup strips "node:" by default; Bun and Deno want the full names, and the test over dist/ checks them.
  removeNodeProtocol: false,
});
