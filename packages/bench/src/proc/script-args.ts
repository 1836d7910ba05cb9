/**
 * A measured script's arguments, read without importing `node:process`: an ESM import of it
 * builds its namespace (3–4.5 ms on Node 20 and 24), and on Deno even the global `process`
 * loads the Node compatibility layer (~8 ms). Either would hide what the adapter's own imports
 * cost on the store side and add to the raw side what a plain script does not pay.
 */
export function scriptArgs(): string[] {
  const deno = (globalThis as { Deno?: { args: string[] } }).Deno;
  return deno ? deno.args : globalThis.process.argv.slice(2);
}
