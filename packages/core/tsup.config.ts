import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "conformance/index": "src/conformance/index.ts",
    host: "src/host/node-fs.ts",
  },
  format: ["esm"],
  dts: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  external: [/^node:/, /^bun:/],
  // Keep `node:fs` etc. as written: Deno and Bun resolve the prefixed names, and the spec checks them.
  removeNodeProtocol: false,
});
