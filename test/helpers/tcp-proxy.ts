// A TCP proxy the test can cut and restore: the server behind it "goes away" and "comes back"
// exactly as a network failure would look to the service.
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): void;
  /** Stops forwarding without closing anything: open and new connections hang, as behind a dead link. */
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let up = true;
  let stalled = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    if (stalled) {
      client.on('error', () => {});
      sockets.add(client);
      return;
    }
    const upstream = connect(targetPort, targetHost);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const cut = () => {
    up = false;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut,
    stall() {
      stalled = true;
      for (const s of sockets) s.unpipe().pause();
    },
    restore() {
      if (stalled) cut();
      stalled = false;
      up = true;
    },
    close() {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
