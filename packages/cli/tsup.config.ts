import { defineConfig } from "tsup";

export default defineConfig({
  entry: { cli: "src/cli.ts" },
  format: ["esm"],
  dts: false,
  clean: true,
  target: "es2022",
  platform: "node",
  banner: { js: "#!/usr/bin/env node" },
  external: [/^node:/, /^@sessiondb\//],
});
