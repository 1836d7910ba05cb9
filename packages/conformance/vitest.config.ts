import { defineConfig } from "vitest/config";

// Both tests read the build (dist/), as a driver author's project does; the example runs the
// suite in a child process, and a hang still fails.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 120_000 } });
