import { packageBuild } from "../../tsup.shared.js";

export default packageBuild({ entry: { index: "src/index.ts" } });
