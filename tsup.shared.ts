/**
 * The build every published package shares: ESM and .d.ts for ES2022; runtime modules (`node:`,
 * `bun:`), bindings and the other @sessiondb packages stay external; `node:` prefixes are kept
 * as written (tsup strips them by default, but Bun and Deno need the full names, and the tests
 * over dist/ check them). Whitespace and comments are stripped: a short-lived process (a CLI
 * call, a hook) compiles every module it loads, and loading and opening through the Node adapter
 * took ~1.1 ms less on Node 24 (18.4 → 17.3 ms). Names are kept: stack traces stay readable and
 * the error classes keep their `name` (renaming them too saved ~1.2 ms more). Lines are kept
 * short (`lineLimit`): Node prints the source line of an uncaught error's throw site, and with
 * whitespace minified that line was the whole module, kilobytes of code before the message.
 */
import { defineConfig, type Options } from "tsup";

/** Characters a line of built output may reach before esbuild breaks it (at the next point
 * where a break is allowed). */
const LINE_LIMIT = 160;

export function packageBuild(options: Options): ReturnType<typeof defineConfig> {
  return defineConfig({
    format: ["esm"],
    dts: true,
    clean: true,
    target: "es2022",
    platform: "neutral",
    removeNodeProtocol: false,
    minifyWhitespace: true,
    minifySyntax: true,
    ...options,
    esbuildOptions(esbuild) {
      // Keep lines short: an uncaught error prints its source line, which would otherwise be
      // the whole module (~150 KB).
      esbuild.lineLimit = LINE_LIMIT;
    },
    external: [/^node:/, /^bun:/, /^@sessiondb\//, ...(options.external ?? [])],
  });
}
