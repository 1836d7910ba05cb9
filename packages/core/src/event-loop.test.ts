import process from "node:process";
import { describe, expect, it } from "vitest";
import { letEventsIn } from "./event-loop.js";

function holdThread(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Synchronous work, as a one-step backup holds the thread.
  }
}

describe("letEventsIn", () => {
  it("resolves only after a signal that arrived during synchronous work has reached its listener", async () => {
    let received = false;
    const listener = () => {
      received = true;
    };
    process.on("SIGUSR2", listener);
    try {
      // From a setImmediate, as better-sqlite3 runs a backup step. The signal is raised while
      // the thread is held, and the held work goes on for longer than a timer's millisecond after
      // the call: a single zero timer is then due before the loop polls, and resolves with the
      // signal still unread (checked: this test fails with one timer, on Node, Bun and Deno).
      const seen = await new Promise<boolean>((resolve, reject) =>
        setImmediate(() => {
          process.kill(process.pid, "SIGUSR2");
          const turned = letEventsIn();
          holdThread(3);
          turned.then(() => resolve(received), reject);
        }),
      );
      expect(seen).toBe(true);
    } finally {
      process.off("SIGUSR2", listener);
    }
  });
});
