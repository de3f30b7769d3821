/**
 * The policies on a real `ws` server, at fixed instants of a ManualClock: drop and warn (one warning
 * frame per streak of refusals), close with 1008 and a reason at the Nth refusal, delay (reading
 * paused, messages handed on in order once they fit), cost in bytes, and a per-connection budget
 * beside a user's, all or nothing.
 */
import { FixedWindowLimiter, ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import type { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { type MessageLimitOptions, messageLimit } from '../src/index.js';
import { closed, open, serveWs, until, type WsServed } from './support/servers.js';

let served: WsServed | undefined;
afterEach(async () => served?.close());

const t0 = Date.UTC(2025, 0, 1);

/** start serves `options`, echoing each handled message as `ok <message>`; `handled` lists them. */
async function start(options: MessageLimitOptions) {
  const limit = messageLimit(options);
  const handled: string[] = [];
  served = await serveWs((socket, req) => {
    socket.on(
      'message',
      limit(socket, req, (data) => {
        handled.push(String(data));
        socket.send(`ok ${String(data)}`);
      }),
    );
  });
  return { handled, url: served.url };
}

/** frames collects what a client receives. */
function frames(client: WebSocket): string[] {
  const got: string[] = [];
  client.on('message', (data) => got.push(String(data)));
  return got;
}

describe('messageLimit', () => {
  it('drops and warns once per streak of refusals', async () => {
    const clock = new ManualClock(t0);
    const { handled, url } = await start({ limiter: new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock }), action: 'warn' });
    const client = await open(url);
    const got = frames(client);
    for (const m of ['a', 'b', 'c', 'd', 'e']) client.send(m);
    await until(() => got.length === 3, client, 'message');
    expect(got).toEqual(['ok a', 'ok b', '{"error":"rate_limited","retryAfterSeconds":1}']);
    clock.advance(1000);
    for (const m of ['f', 'g', 'h']) client.send(m);
    await until(() => got.length === 6, client, 'message');
    expect(got.slice(3)).toEqual(['ok f', 'ok g', '{"error":"rate_limited","retryAfterSeconds":1}']);
    expect(handled).toEqual(['a', 'b', 'f', 'g']);
    client.close();
  });

  it('closes with 1008 and its reason at the closeAfter-th refusal', async () => {
    const clock = new ManualClock(t0);
    const { handled, url } = await start({ limiter: new FixedWindowLimiter({ limit: 5, windowMs: 60_000, clock }), closeAfter: 3, closeReason: 'too chatty' });
    const client = await open(url);
    const end = closed(client);
    for (let i = 0; i < 10; i++) client.send(String(i));
    expect(await end).toEqual({ code: 1008, reason: 'too chatty' });
    expect(handled).toEqual(['0', '1', '2', '3', '4']);
  });

  it('delays: holds refused messages with the socket paused and hands them on in order once they fit', async () => {
    const clock = new ManualClock(t0);
    // Two at once, then one every millisecond: each retry waits 1 ms of real time and finds the stopped clock unchanged until the test moves it.
    const { handled, url } = await start({ limiter: new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1000, clock }), action: 'delay' });
    const client = await open(url);
    const got = frames(client);
    for (const m of ['a', 'b', 'c', 'd', 'e']) client.send(m);
    await until(() => got.length === 2, client, 'message');
    const socket = (served as WsServed).wss.clients.values().next().value as WebSocket;
    expect(socket.isPaused).toBe(true);
    expect(handled).toEqual(['a', 'b']);
    clock.advance(2);
    await until(() => got.length === 4, client, 'message');
    expect(socket.isPaused).toBe(true);
    clock.advance(1);
    await until(() => got.length === 5, client, 'message');
    expect(handled).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(socket.isPaused).toBe(false);
    client.close();
  });

  it('charges a message its size in bytes with cost: "bytes"', async () => {
    const clock = new ManualClock(t0);
    const { handled, url } = await start({ limiter: new FixedWindowLimiter({ limit: 10, windowMs: 1000, clock }), cost: 'bytes', closeAfter: 1 });
    const client = await open(url);
    const end = closed(client);
    for (const m of ['1234', '5678', '90', 'x']) client.send(m);
    expect((await end).code).toBe(1008);
    expect(handled).toEqual(['1234', '5678', '90']);
  });

  it('shares a user budget between sockets, all or nothing with each socket’s own', async () => {
    const clock = new ManualClock(t0);
    const user = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, clock, name: 'user' });
    const own = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, clock, name: 'conn' });
    const { handled, url } = await start({ limiter: user, perConnection: own, key: () => 'ada', closeAfter: 1 });
    const a = await open(url);
    const endA = closed(a);
    for (const m of ['a1', 'a2', 'a3', 'a4']) a.send(m);
    expect((await endA).code).toBe(1008);
    const b = await open(url);
    const endB = closed(b);
    for (const m of ['b1', 'b2', 'b3', 'b4']) b.send(m);
    expect((await endB).code).toBe(1008);
    // a4 was refused by its socket's own budget, b3 by the user's: neither cost the other budget anything.
    expect(handled).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
    expect(user.peek('ada').allowed).toBe(false);
  });

  it('refuses invalid options at construction', () => {
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 1000 });
    expect(() => messageLimit({} as never)).toThrow(new TypeError('messageLimit: limiter must be a RateLimiter (from @ratekeeper/core), got undefined'));
    expect(() => messageLimit({ limiter, action: 'ignore' as never })).toThrow(new TypeError(`messageLimit: action must be 'drop', 'warn' or 'delay', got "ignore"`));
    expect(() => messageLimit({ limiter, closeAfter: 0 })).toThrow(new RangeError('messageLimit: closeAfter must be a positive integer, got 0'));
    expect(() => messageLimit({ limiter, maxQueued: 1.5 })).toThrow(new RangeError('messageLimit: maxQueued must be a positive integer, got 1.5'));
    expect(() => messageLimit({ limiter, cost: 'size' as never })).toThrow(new TypeError('messageLimit: cost must be a function, got "size"'));
    expect(() => messageLimit({ limiter, closeReason: 'x'.repeat(124) })).toThrow(TypeError);
    expect(() => messageLimit({ limiter, limt: 1 } as never)).toThrow('messageLimit: unknown option "limt"');
  });
});
