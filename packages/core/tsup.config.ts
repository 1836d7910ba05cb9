import { packageBuild } from "../../tsup.shared.js";

export default packageBuild({
  entry: {
    index: "src/index.ts",
    driver: "src/driver-entry.ts",
    host: "src/host/node-fs.ts",
    testing: "src/testing.ts",
  },
});
