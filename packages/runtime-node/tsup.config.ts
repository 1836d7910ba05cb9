import { packageBuild } from "../../tsup.shared.js";

// The node:sqlite specifier is a string passed to getBuiltinModule, which the bundler leaves alone.
export default packageBuild({ entry: { index: "src/index.ts" }, external: ["better-sqlite3"] });
