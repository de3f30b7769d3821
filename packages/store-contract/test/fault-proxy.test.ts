/**
 * The test kit's faultProxy does each fault it names, in front of an echo server on 127.0.0.1: the
 * stores' network-fault tests are only as good as the faults they are put through. Each check would
 * fail on a proxy that let the fault's bytes through (or lost them): latency delays an echo by at
 * least its ms; a blackhole passes nothing until heal, then everything in order; half-open connections
 * reset on the client's next write while new connections go through; a reset mid-reply delivers part
 * of the reply, then resets; a bandwidth cap spaces the bytes out.
 */
import { type Socket, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, type Listener, faultProxy, listening } from '../src/index.js';

let echo: Listener;
const proxies: FaultProxy[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  echo = await listening((socket) => socket.pipe(socket));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const proxy of proxies) await proxy.close();
  await echo.close();
});

/** through makes a proxy to the echo server and a connected client, with what it has received and how it ended. */
async function through() {
  const proxy = await faultProxy('127.0.0.1', echo.port);
  proxies.push(proxy);
  const client = await open(proxy.port);
  return { proxy, ...client };
}

async function open(port: number) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const seen = { data: '', error: undefined as string | undefined, closed: false };
  socket.on('data', (chunk: Buffer) => {
    seen.data += chunk.toString();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    seen.error = error.code;
  });
  socket.on('close', () => {
    seen.closed = true;
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, seen };
}

/** until resolves once `ok` holds, polling each 5 ms (at most 3 s: the check then fails on what it sees). */
function until(ok: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const started = performance.now();
    const timer = setInterval(() => {
      if (ok() || performance.now() - started > 3000) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
}

/** quiet waits `ms` of real time: long enough for a relayed byte to come back on loopback many times over. */
const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('faultProxy', () => {
  it('relays both ways while healthy', async () => {
    const { socket, seen } = await through();
    socket.write('hello');
    await until(() => seen.data === 'hello');
    expect(seen.data).toBe('hello');
  });

  it('latency: each direction is held at least its ms', async () => {
    const { proxy, socket, seen } = await through();
    proxy.latency(60);
    const start = performance.now();
    socket.write('x');
    await until(() => seen.data === 'x');
    expect(seen.data).toBe('x');
    expect(performance.now() - start).toBeGreaterThanOrEqual(2 * 60 - 2);
  });

  it('blackhole: nothing goes through until heal, then everything, in order', async () => {
    const { proxy, socket, seen } = await through();
    proxy.blackhole();
    socket.write('a');
    socket.write('b');
    await quiet(100);
    expect(seen.data).toBe('');
    expect(seen.closed).toBe(false);
    proxy.heal();
    await until(() => seen.data === 'ab');
    expect(seen.data).toBe('ab');
  });

  it('half-open: the open connection resets on its next write; a new connection goes through', async () => {
    const { proxy, socket, seen } = await through();
    proxy.halfOpen();
    socket.write('lost');
    await until(() => seen.closed);
    expect(seen.error).toBe('ECONNRESET');
    expect(seen.data).toBe('');
    const fresh = await open(proxy.port);
    fresh.socket.write('new');
    await until(() => fresh.seen.data === 'new');
    expect(fresh.seen.data).toBe('new');
  });

  it('reset mid-reply: the first half of the next reply arrives, then the connection is gone', async () => {
    const { proxy, socket, seen } = await through();
    proxy.resetMidReply();
    socket.write('abcdefgh');
    await until(() => seen.closed);
    expect(seen.closed).toBe(true); // by a reset (Node may report it as a plain close once the data was read)
    expect(seen.data).toBe('abcd');
  });

  it('bandwidth: 2,000 bytes at 10,000 bytes a second take at least 2 × 200 ms', async () => {
    const { proxy, socket, seen } = await through();
    proxy.bandwidth(10_000);
    const start = performance.now();
    socket.write('y'.repeat(2000));
    await until(() => seen.data.length === 2000);
    expect(seen.data.length).toBe(2000);
    expect(performance.now() - start).toBeGreaterThanOrEqual(2 * 200 - 2);
  });
});
