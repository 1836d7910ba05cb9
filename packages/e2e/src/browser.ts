/**
 * Headless Chromium for the e2e browser tests: the build shipped inside @sparticuz/chromium,
 * driven by playwright-core (nothing downloaded), with its normal defences on and nothing that
 * calls home (the tests talk to 127.0.0.1 only).
 */
import chromiumPkg from "@sparticuz/chromium";
import { type Browser, chromium } from "playwright-core";

/** Its Lambda defaults run one process (closing a page would end the browser) and turn off web
 * security; a browser under test keeps both. */
const UNWANTED_ARGS = new Set([
  "--single-process",
  "--disable-web-security",
  "--allow-running-insecure-content",
]);
const QUIET_ARGS = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumPkg.executablePath(),
    args: [...chromiumPkg.args.filter((a) => !UNWANTED_ARGS.has(a)), ...QUIET_ARGS],
    headless: true,
  });
}
