/** The schema fingerprint: a hash of everything that defines the store's shape. */
import { FTS_LAYOUT_VERSION, SCHEMA_VERSION, TOOL_CONTENT_PREFIX_CHARS } from "../constants.js";
import { schemaDdl } from "./ddl.js";

/** 64-bit FNV-1a over UTF-16 code units, as 16 hex digits. Not cryptographic: it only has to
 * change whenever the generated DDL changes, and be identical on every runtime. */
export function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * prime) & mask;
  }
  return hash.toString(16).padStart(16, "0");
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
  return `v${SCHEMA_VERSION}-${fnv1a64(parts.join("\n;\n"))}`;
}
