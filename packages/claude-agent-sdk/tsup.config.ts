import { packageBuild } from "../../tsup.shared.js";

export default packageBuild({
  entry: { index: "src/index.ts" },
  external: ["@anthropic-ai/claude-agent-sdk"],
});
