/**
 * The shared host asks for each built-in module once, on the first call that needs it: opening
 * a store that exists, appending, reading and closing takes `fs` only, and `os` only when the
 * hostname is asked for (the admission lock's holder record, which creating a store writes), so
 * a short process on an existing store does not load `node:os`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir, testDriver } from "../../test/support/driver.js";
import { createStore } from "../store.js";
import { createFsHost } from "./fs-host.js";
import { nodeFsHost } from "./node-fs.js";

let dir: ReturnType<typeof tempDir> | undefined;

afterEach(() => {
  dir?.cleanup();
  dir = undefined;
});

describe("createFsHost", () => {
  it("loads fs on the first call that needs it and os only for the hostname, each once", () => {
    const asked = { fs: 0, os: 0 };
    const host = createFsHost({
      fs: () => {
        asked.fs++;
        return fs;
      },
      os: () => {
        asked.os++;
        return os;
      },
    });
    expect(asked).toEqual({ fs: 0, os: 0 });

    dir = tempDir();
    const file = dir.file("state.db");
    const first = createStore(testDriver, file, { host: nodeFsHost });
    first.createSession({ id: "s1", source: "cli" });
    first.close();
    // What a hook's process does with a store that exists.
    const store = createStore(testDriver, file, { host });
    store.appendMessage("s1", { role: "user", content: "hello" });
    expect(store.getMessages("s1", { last: 50 })).toHaveLength(1);
    store.close();
    expect(asked).toEqual({ fs: 1, os: 0 });

    expect(host.hostname()).toBe(os.hostname());
    expect(host.hostname()).toBe(os.hostname());
    expect(asked).toEqual({ fs: 1, os: 1 });
  });
});
