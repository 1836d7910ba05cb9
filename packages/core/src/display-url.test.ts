import { describe, expect, test } from "vitest";
import { displayUrl } from "./display-url.js";

describe("displayUrl", () => {
  test.each([
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["http://127.0.0.1:8080/", "http://127.0.0.1:8080"],
    ["http://127.0.0.1:18599/?authToken=SEKRET123", "http://127.0.0.1:18599"],
    ["libsql://127.0.0.1:18599?authToken=SEKRET123&tls=0", "libsql://127.0.0.1:18599?tls=0"],
    ["ws://127.0.0.1:18599/db/path?authToken=SEKRET123#frag", "ws://127.0.0.1:18599/db/path"],
    ["https://alice:hunter2@db.example.invalid/", "https://db.example.invalid"],
    ["https://alice@db.example.invalid:443/x", "https://db.example.invalid/x"],
    ["wss://al%40ice:hun%3Ater2@db.example.invalid/", "wss://db.example.invalid"],
    ["libsql://my-db-me.turso.io", "libsql://my-db-me.turso.io"],
    ["https://db.example.invalid/?secret=SEKRET123", "https://db.example.invalid"],
    ["file:///home/me@work/state.db", "file:///home/me@work/state.db"],
    ["file:state.db?mode=ro", "file:state.db"],
  ])("%s is shown as %s", (url, shown) => {
    expect(displayUrl(url)).toBe(shown);
  });

  test("text that does not parse as a URL loses everything up to its last @, and its query", () => {
    for (const url of [
      "http://alice:hun/ter2@[bad/",
      "ftp://alice:hunter2@ho st/?authToken=SEKRET123",
      "//alice:hunter2@x",
    ]) {
      const shown = displayUrl(url);
      expect(shown).not.toMatch(/hunter2|hun\/ter2|SEKRET123|alice/);
    }
    expect(displayUrl("http://alice:hun/ter2@[bad/")).toBe("http://[bad/");
  });
});
