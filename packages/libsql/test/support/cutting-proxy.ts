/**
 * Test-only fault injection: a TCP proxy in front of a real sqld that forwards everything until
 * a client request contains a marker (e.g. `"COMMIT"`), then delivers that request to the server
 * and cuts the client's connection before the answer comes back — the one failure a loopback
 * server never produces by itself: a request that reached the server whose answer was lost.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface CuttingProxy {
  /** `http://127.0.0.1:<port>`, to give the client instead of the server's URL. */
  readonly url: string;
  /** Cut the next connection whose request contains `marker` (after forwarding it). */
  cutOn(marker: string | undefined): void;
  /** How many connections were cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

export async function cuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  let marker: string | undefined;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let cutting = false;
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      if (marker !== undefined && !cutting && chunk.includes(marker)) {
        cutting = true;
        marker = undefined;
        cuts++;
      }
    });
    upstream.on("data", (chunk: Buffer) => {
      // The server answered the marked request: drop the answer and reset the client.
      if (cutting) client.resetAndDestroy();
      else client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const listening = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${listening}`,
    cutOn(next) {
      marker = next;
    },
    get cuts() {
      return cuts;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
