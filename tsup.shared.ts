/**
 * The build every published package shares: ESM and .d.ts for ES2022; runtime modules (`node:`,
 * `bun:`), bindings and the other @sessiondb packages stay external; `node:` prefixes are kept
 * as written (tsup strips them by default, but Bun and Deno need the full names, and the tests
 * over dist/ check them).
 */
import { defineConfig, type Options } from "tsup";

export function packageBuild(options: Options): ReturnType<typeof defineConfig> {
  return defineConfig({
    format: ["esm"],
    dts: true,
    clean: true,
    target: "es2022",
    platform: "neutral",
    removeNodeProtocol: false,
    ...options,
    external: [/^node:/, /^bun:/, /^@sessiondb\//, ...(options.external ?? [])],
  });
}
