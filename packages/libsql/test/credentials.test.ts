/**
 * The credentials of a connection never leave in an error's text: URLs inside any message (the
 * client's, the runtime's fetch — Deno quotes the URL it was given) are shown by `displayUrl`,
 * and the token and password are cut wherever else they appear, along the whole cause chain.
 */
import { describe, expect, it } from "vitest";
import { credentialsOf } from "../src/credentials.js";

const URL_GIVEN = "http://alice:hunter2pw@db.example.invalid:8080/?authToken=SEKRET123token";

describe("credentialsOf(url, authToken).scrubError", () => {
  it("cleans message and stack of every error along the cause chain, in place", () => {
    const { scrubError } = credentialsOf(URL_GIVEN, "OPTIONtoken42");
    const inner = new Error(
      "error sending request for url (http://alice:hunter2pw@db.example.invalid:8080/v2/pipeline?authToken=SEKRET123token): connection refused",
    );
    const aggregate = new AggregateError([new Error("token OPTIONtoken42 rejected")], "several attempts", {
      cause: inner,
    });
    const outer = new TypeError("fetch failed: alice:hunter2pw@db.example.invalid", { cause: aggregate });
    expect(scrubError(outer)).toBe(outer);
    const texts = [outer, aggregate, inner, ...aggregate.errors].flatMap((e: Error) => [
      e.message,
      String(e.stack),
    ]);
    for (const text of texts) expect(text).not.toMatch(/hunter2pw|SEKRET123token|OPTIONtoken42|alice/);
    expect(inner.message).toBe(
      "error sending request for url (http://db.example.invalid:8080/v2/pipeline): connection refused",
    );
    expect(outer.message).toBe("fetch failed: db.example.invalid");
  });

  it("leaves text without credentials as it was, and short values outside URLs alone", () => {
    const { scrub } = credentialsOf("https://bob:pw@db.example.invalid/", undefined);
    expect(scrub("connect ECONNREFUSED 127.0.0.1:8080")).toBe("connect ECONNREFUSED 127.0.0.1:8080");
    expect(scrub("see https://bob:pw@db.example.invalid/v2 (pw is short)")).toBe(
      "see https://db.example.invalid/v2 (pw is short)",
    );
  });
});
