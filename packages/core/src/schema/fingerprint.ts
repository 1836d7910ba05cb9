/** The schema fingerprint: a hash of everything that defines the store's shape. */
import { FTS_LAYOUT_VERSION, SCHEMA_VERSION, TOOL_CONTENT_PREFIX_CHARS } from "../constants.js";
import { schemaDdl } from "./ddl.js";

/** A 64-bit hash of `text` as 16 hex digits: two 32-bit FNV-1a-style lanes with different
 * primes, mixed at the end, over UTF-16 code units. Not cryptographic: it only has to change
 * whenever the generated DDL changes and be identical on every runtime. */
export function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x85ebca6b);
  }
  a = Math.imul(a ^ (b >>> 15), 0xc2b2ae35) >>> 0;
  b = Math.imul(b ^ (a >>> 13), 0x27d4eb2f) >>> 0;
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** Fingerprint of this build: table DDL + FTS DDL + FTS layout version + tool prefix + schema version. */
export function schemaFingerprint(ftsText: string): string {
  const parts = [
    ...schemaDdl(),
    ftsText,
    `fts_layout=${FTS_LAYOUT_VERSION}`,
    `tool_prefix=${TOOL_CONTENT_PREFIX_CHARS}`,
    `schema_version=${SCHEMA_VERSION}`,
  ];
  return `v${SCHEMA_VERSION}-${hash64(parts.join("\n;\n"))}`;
}

/**
 * This build's fingerprint, `schemaFingerprint(ftsFingerprintText())` written out: every open
 * compares it with the store's, and computing it (generating ~7 KB of DDL and hashing it) cost
 * about a millisecond of every process's start. fingerprint.test.ts recomputes it and fails,
 * printing the new value, when the schema or the FTS projection changes without it.
 */
export const SCHEMA_FINGERPRINT = "v1-56537f36c281841c";
