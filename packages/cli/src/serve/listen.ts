/**
 * One fetch handler, each runtime's own HTTP server: `Bun.serve` on Bun, `Deno.serve` on Deno,
 * node:http through @hono/node-server on Node (loaded only there). Resolves once the socket is
 * bound, with the port it got (port 0 asks the system for a free one).
 */
import type { RuntimeName } from "../runtime.js";

export interface Listening {
  port: number;
  close(): Promise<void>;
}

type Fetch = (request: Request) => Response | Promise<Response>;

interface BunServer {
  port: number;
  stop(closeActive?: boolean): Promise<void> | void;
}
interface DenoServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}
interface Globals {
  Bun?: { serve(options: { fetch: Fetch; port: number; hostname: string }): BunServer };
  Deno?: {
    serve(options: { port: number; hostname: string; onListen?: () => void }, handler: Fetch): DenoServer;
  };
}

export async function listen(
  runtime: RuntimeName,
  fetch: Fetch,
  hostname: string,
  port: number,
): Promise<Listening> {
  const g = globalThis as Globals;
  if (runtime === "bun" && g.Bun) {
    const server = g.Bun.serve({ fetch, port, hostname });
    return { port: server.port, close: async () => void (await server.stop(true)) };
  }
  if (runtime === "deno" && g.Deno) {
    const server = g.Deno.serve({ port, hostname, onListen: () => {} }, fetch);
    return { port: server.addr.port, close: () => server.shutdown() };
  }
  const { createAdaptorServer } = await import("@hono/node-server");
  const server = createAdaptorServer({ fetch });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
