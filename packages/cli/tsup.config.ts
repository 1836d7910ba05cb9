import { packageBuild } from "../../tsup.shared.js";

export default packageBuild({
  entry: { cli: "src/cli.ts", bin: "src/bin.ts" },
  dts: false,
  banner: { js: "#!/usr/bin/env node" },
});
