/**
 * A client that disconnects while its messages' charges are in flight (a remote store's answers not
 * yet back): none of those messages reaches the handler, and their units go back to the budget with
 * `refundOnClose` (the default) or stay spent without it. The limiter holds its answers until the test
 * lets them go (test/support/gated.ts), so the close always comes first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messageLimit } from '../src/index.js';
import { GatedLimiter } from './support/gated.js';
import { open, serveWs, until, type WsServed } from './support/servers.js';

let served: WsServed | undefined;
afterEach(async () => served?.close());

async function disconnectMidCharge(refundOnClose: boolean) {
  const limiter = new GatedLimiter(10);
  const limit = messageLimit({ limiter, key: () => 'ada', refundOnClose });
  let handled = 0;
  let serverClosed = false;
  served = await serveWs((socket, req) => {
    socket.on(
      'message',
      limit(socket, req, () => handled++),
    );
    socket.once('close', () => (serverClosed = true));
  });
  const client = await open(served.url);
  client.send('one');
  client.send('two');
  client.send('three');
  const s = served;
  const socket = s.wss.clients.values().next().value as import('ws').WebSocket;
  await until(() => s.raw === 3, socket, 'message');
  // Messages are decided one at a time, in order: the first is in flight, two wait behind it.
  expect(limiter.pending).toBe(1);
  client.terminate();
  await until(() => serverClosed, socket, 'close');
  limiter.open();
  await new Promise((resolve) => setImmediate(resolve));
  return { handled, available: limiter.inner.peek('ada', 1).remaining + 1 };
}

describe('a client that disconnects mid-charge', () => {
  it('gets its in-flight units back with refundOnClose (the default), and nothing is handled', async () => {
    expect(await disconnectMidCharge(true)).toEqual({ handled: 0, available: 10 });
  });

  it('keeps them spent with refundOnClose: false', async () => {
    expect(await disconnectMidCharge(false)).toEqual({ handled: 0, available: 9 });
  });
});
