import { readFileSync } from "node:fs";
import { packageBuild } from "../../tsup.shared.js";

/** `sessiondb --version` prints this package's version, put in at build time. */
const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  version: string;
};

export default packageBuild({
  entry: { cli: "src/cli.ts", bin: "src/bin.ts" },
  dts: false,
  banner: { js: "#!/usr/bin/env node" },
  define: { __SESSIONDB_CLI_VERSION__: JSON.stringify(version) },
});
