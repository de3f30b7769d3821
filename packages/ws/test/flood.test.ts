/**
 * One socket flooding: 100,000 messages from one client reach the handler at most `limit` times per
 * window, exactly `limit` here, with the clock stopped; the next window admits again. On a real
 * `ws` server over loopback, the default policy (drop).
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import { messageLimit } from '../src/index.js';
import { open, serveWs, until, type WsServed } from './support/servers.js';

let served: WsServed | undefined;
afterEach(async () => served?.close());

describe('one socket sending 100,000 messages', () => {
  it('reaches the handler exactly limit times in the window, then again in the next', async () => {
    const clock = new ManualClock(Date.UTC(2025, 0, 1));
    const limit = messageLimit({ limiter: new FixedWindowLimiter({ limit: 100, windowMs: 1000, clock }) });
    let handled = 0;
    const order: number[] = [];
    served = await serveWs((socket, req) => {
      socket.on(
        'message',
        limit(socket, req, (data) => {
          handled++;
          if (order.length < 100) order.push(Number(String(data)));
        }),
      );
    });
    const client = await open(served.url);
    for (let i = 0; i < 100_000; i++) client.send(String(i));
    const s = served;
    await until(() => s.raw === 100_000, s.wss.clients.values().next().value as never, 'message');
    expect(handled).toBe(100);
    expect(order).toEqual(Array.from({ length: 100 }, (_, i) => i));
    clock.advance(1000);
    client.send('next window');
    await until(() => s.raw === 100_001, s.wss.clients.values().next().value as never, 'message');
    expect(handled).toBe(101);
    client.close();
  });
});
