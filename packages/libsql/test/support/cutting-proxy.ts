/**
 * Test-only fault injection: a TCP proxy in front of a real sqld that forwards everything until
 * a client request contains a marker (e.g. `"COMMIT"`), then delivers that request to the server
 * and cuts the client's connection before the answer comes back — the one failure a loopback
 * server never produces by itself: a request that reached the server whose answer was lost.
 * With `downForMs`, the proxy then resets every connection and refuses new ones for that long, as
 * a node that was killed right after answering and is restarted.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface CuttingProxy {
  /** `http://127.0.0.1:<port>`, to give the client instead of the server's URL. */
  readonly url: string;
  /** Cut the next connection whose request contains `marker` (after forwarding it); then refuse
   * connections for `downForMs` (default 0). */
  cutOn(marker: string | undefined, options?: { downForMs?: number }): void;
  /** How many connections were cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

export async function cuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  let marker: string | undefined;
  let downForMs = 0;
  let cuts = 0;
  let listening = 0;
  let closed = false;
  const sockets = new Set<Socket>();
  const listen = (server: Server, port: number) =>
    new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  /** As a killed node: reset every connection and refuse new ones for `ms`, then take them again
   * on the same port. */
  const goDown = (ms: number) => {
    server.close();
    for (const socket of sockets) socket.resetAndDestroy();
    sockets.clear();
    setTimeout(() => {
      if (closed) return;
      server = createServer(forward);
      void listen(server, listening);
    }, ms);
  };
  const forward = (client: Socket) => {
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
      if (!cutting) client.write(chunk);
      else if (!client.destroyed) {
        client.resetAndDestroy();
        if (downForMs > 0) goDown(downForMs);
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  };
  let server: Server = createServer(forward);
  await listen(server, 0);
  const address = server.address();
  listening = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${listening}`,
    cutOn(next, options) {
      marker = next;
      downForMs = options?.downForMs ?? 0;
    },
    get cuts() {
      return cuts;
    },
    close() {
      closed = true;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
