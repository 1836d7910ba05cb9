import { describe, expect, it } from "vitest";
import { ftsFingerprintText } from "../fts/index.js";
import { hash64, SCHEMA_FINGERPRINT, schemaFingerprint } from "./fingerprint.js";

describe("schema fingerprint", () => {
  it("hash64 is 16 hex digits, deterministic, and moves with any change", () => {
    const text = "CREATE TABLE t (a TEXT)";
    expect(hash64(text)).toMatch(/^[0-9a-f]{16}$/);
    expect(hash64(text)).toBe(hash64(text));
    expect(hash64(text)).not.toBe(hash64("CREATE TABLE t (b TEXT)"));
    expect(hash64("")).not.toBe(hash64(" "));
    // Pinned: the value is part of the on-disk contract (every runtime must compute the same).
    expect(hash64("sessiondb")).toBe("817046fa1ed96231");
  });

  it("the fingerprint covers the FTS text as well as the table DDL", () => {
    expect(schemaFingerprint("fts v1")).not.toBe(schemaFingerprint("fts v2"));
    expect(schemaFingerprint("fts v1")).toMatch(/^v\d+-[0-9a-f]{16}$/);
  });

  it("SCHEMA_FINGERPRINT is this build's fingerprint, recomputed", () => {
    const computed = schemaFingerprint(ftsFingerprintText());
    // On failure: the DDL or the FTS projection changed; write the new value into fingerprint.ts
    // (and give the change its migration or reconcile step, as any schema change needs).
    expect(SCHEMA_FINGERPRINT, `set SCHEMA_FINGERPRINT to "${computed}" in src/schema/fingerprint.ts`).toBe(
      computed,
    );
  });
});
