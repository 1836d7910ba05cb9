/**
 * The server's own assets, held in memory: the stylesheet and the one script. Nothing is ever
 * read from disk to answer a request. Names carry a content hash so they can be cached forever.
 */
import { createHash } from "node:crypto";
import { SCRIPT } from "./script.js";
import { STYLE } from "./style.js";

export interface Asset {
  body: string;
  type: string;
}

function named(base: string, ext: string, body: string, type: string): [string, Asset] {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 10);
  return [`${base}.${hash}.${ext}`, { body, type }];
}

const ENTRIES = [
  named("style", "css", STYLE, "text/css; charset=utf-8"),
  named("app", "js", SCRIPT, "text/javascript; charset=utf-8"),
  named(
    "icon",
    "svg",
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/><path d="M9 11h14M9 16h10M9 21h12" stroke="#fff" stroke-width="2.6" stroke-linecap="round"/></svg>`,
    "image/svg+xml",
  ),
];

/** Asset by file name (the hashed name under /assets/). */
export const ASSETS: ReadonlyMap<string, Asset> = new Map(ENTRIES);

/** URL paths of the assets a page links. */
export const ASSET_URL = {
  style: `/assets/${ENTRIES[0]?.[0]}`,
  script: `/assets/${ENTRIES[1]?.[0]}`,
  icon: `/assets/${ENTRIES[2]?.[0]}`,
};
