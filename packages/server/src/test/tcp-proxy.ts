import net from 'node:net';

/** A TCP proxy to a server that a test can cut off and restore, as a network outage would. */
export interface TcpProxy {
  /** The port the proxy listens on, on 127.0.0.1. */
  port: number;
  /** Drops every open connection and refuses new ones until `restore`. */
  cut(): void;
  /**
   * Carries nothing more either way, yet keeps every connection open and takes new ones
   * without a word, until `restore`: a frozen network, or a server process that stopped.
   */
  freeze(): void;
  /** Opens the way again; connections held while frozen are dropped, as their peers gave up. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let open = true;
  let frozen = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (frozen) return;
    if (!open) {
      // As a refused connection looks to the client: closed before anything was said.
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      open = false;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    freeze() {
      frozen = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore() {
      if (frozen) for (const socket of sockets) socket.destroy();
      frozen = false;
      open = true;
    },
    close() {
      open = false;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
