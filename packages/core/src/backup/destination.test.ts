/**
 * A backup destination that is neither a file nor a folder (a device here) is refused in words
 * that read right: the host's "other" kind is not a noun to put after "a".
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testDriver } from "../../test/support/driver.js";
import { BackupDestinationError } from "../errors.js";
import { nodeFsHost } from "../host/node-fs.js";
import { checkDestination } from "./destination.js";

describe("checkDestination", () => {
  const store = join(mkdtempSync(join(tmpdir(), "sessiondb-destination-")), "state.db");

  it("a device is refused as one, with nothing written", () => {
    let caught: unknown;
    try {
      checkDestination(testDriver, nodeFsHost, store, "/dev/null", false);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BackupDestinationError);
    expect((caught as BackupDestinationError).reason).toBe("not-a-file");
    expect((caught as Error).message).toContain(
      '"/dev/null": it is a device, FIFO or socket, not a regular file',
    );
    expect((caught as Error).message).not.toContain("a other");
  });

  it("a folder is refused as a directory", () => {
    expect(() => checkDestination(testDriver, nodeFsHost, store, tmpdir(), true)).toThrow(
      /is a directory, not a regular file/,
    );
  });
});
