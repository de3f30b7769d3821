/**
 * TCP fixtures for a store's fault tests, all on 127.0.0.1: a listener that accepts connections and
 * answers nothing (a database that hangs), a relay to the real database that a test cuts (a database
 * that answered, then went away), and a port nothing listens on (a database never reached).
 * `close()` destroys the open connections, then stops listening; it may be called more than once.
 */
import { type Socket, connect, createServer } from 'node:net';

export interface Listener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * listening starts a TCP server on `port` (default: a free one; a closedPort's, to bring back a
 * database that refused connections) that hands each connection to `onSocket` (by default: answers nothing).
 */
export async function listening(onSocket: (socket: Socket) => void = () => {}, port = 0): Promise<Listener> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** relay listens on `at` (default: a free port) and pipes each connection to `host`:`port` (the real database). */
export function relay(host: string, port: number, at = 0): Promise<Listener> {
  return listening((socket) => {
    const upstream = connect(port, host);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  }, at);
}

/** closedPort is a port nothing listens on (a listener's, closed). */
export async function closedPort(): Promise<number> {
  const listener = await listening();
  await listener.close();
  return listener.port;
}
