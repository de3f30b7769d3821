/**
 * `unreachable` (the store kit's failure.ts) tells a connection that could not be made at all from one
 * that was made and then died: the SQL stores rerun a call on the second, never on the first. Checked on
 * the errors Node really gives: a connect to a closed port (ECONNREFUSED) and a connection the server
 * reset (ECONNRESET).
 */
import { type Socket, connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { unreachable } from '../src/store/index.js';

/** errorOf connects to `port` and resolves to the first error the socket emits. */
function errorOf(port: number, onConnect?: (socket: Socket) => void): Promise<unknown> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', resolve);
    if (onConnect !== undefined) socket.once('connect', () => onConnect(socket));
  });
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe('unreachable', () => {
  it('is true for a connect the server refused', async () => {
    const error = await errorOf(await freePort());
    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
    expect(unreachable(error)).toBe(true);
  });

  it('is false for a connection that was made and then reset', async () => {
    const server = createServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const error = await errorOf((server.address() as { port: number }).port, (socket) => socket.write('hello'));
      expect((error as { code?: string }).code).toBe('ECONNRESET');
      expect(unreachable(error)).toBe(false);
    } finally {
      server.close();
    }
  });

  it("is true for postgres.js's connect timeout and Node's other unreachable codes, false for anything without a code", () => {
    for (const code of ['CONNECT_TIMEOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']) expect(unreachable({ code })).toBe(true);
    for (const value of [null, undefined, 'ECONNREFUSED', new Error('ECONNREFUSED'), { code: 1 }, { code: 'EPIPE' }]) expect(unreachable(value)).toBe(false);
  });
});
