/**
 * eventLimit on a real socket.io v4 server (WebSocket transport over loopback), at fixed instants of a
 * ManualClock: a limiter per event name, the warning event once per streak, the disconnect at the Nth
 * refusal, namespaces multiplexed on one connection each with their own budget, and events held in
 * order under `delay`. The client ends each burst with an acknowledged `done` (never limited), so the
 * server has seen every event before the test counts.
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import type { Socket as IoClient } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type EventLimitOptions, eventLimit } from '../src/index.js';
import { connectIo, type IoServed, serveIo } from './support/servers.js';

let served: IoServed | undefined;
afterEach(async () => served?.close());

const t0 = Date.UTC(2025, 0, 1);

/** start serves `options` on the namespaces given; `handled` lists each namespace's handled events. */
async function start(options: EventLimitOptions, namespaces = ['/']) {
  const handled: string[] = [];
  const limit = eventLimit(options);
  served = await serveIo((io) => {
    for (const name of namespaces) {
      io.of(name).on('connection', (socket) => {
        socket.use(limit(socket));
        // Handlers by event name: socket.io calls onAny listeners before the middleware of socket.use.
        for (const event of ['chat', 'move']) socket.on(event, (arg: unknown) => handled.push(`${name} ${event} ${arg}`));
        socket.on('done', (ack: () => void) => ack());
      });
    }
  });
  return { handled, url: served.url };
}

const done = (client: IoClient) => client.timeout(5000).emitWithAck('done');

describe('eventLimit', () => {
  it('charges each event name on its own limiter, falling back to the shared one', async () => {
    const clock = new ManualClock(t0);
    const chat = new FixedWindowLimiter({ limit: 3, windowMs: 1000, clock, name: 'chat' });
    const all = new FixedWindowLimiter({ limit: 5, windowMs: 1000, clock, name: 'all' });
    const { handled, url } = await start({ limiter: all, events: { chat, done: new FixedWindowLimiter({ limit: 100, windowMs: 1000, clock, name: 'done' }) } });
    const client = await connectIo(url);
    for (let i = 0; i < 6; i++) client.emit('chat', i);
    for (let i = 0; i < 7; i++) client.emit('move', i);
    await done(client);
    expect(handled).toEqual([...[0, 1, 2].map((i) => `/ chat ${i}`), ...[0, 1, 2, 3, 4].map((i) => `/ move ${i}`)]);
    client.disconnect();
  });

  it('warns once per streak with the rate_limited event, naming the event', async () => {
    const clock = new ManualClock(t0);
    const { url } = await start({
      limiter: new FixedWindowLimiter({ limit: 1, windowMs: 1000, clock }),
      events: { done: new FixedWindowLimiter({ limit: 9, windowMs: 1000, clock, name: 'done' }) },
      action: 'warn',
    });
    const client = await connectIo(url);
    const warnings: unknown[] = [];
    client.on('rate_limited', (info) => warnings.push(info));
    for (let i = 0; i < 4; i++) client.emit('chat', i);
    await done(client);
    expect(warnings).toEqual([{ retryAfterSeconds: 1, denials: 1, event: 'chat' }]);
    client.disconnect();
  });

  it('disconnects the socket at its closeAfter-th refusal', async () => {
    const clock = new ManualClock(t0);
    const { handled, url } = await start({ limiter: new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock }), closeAfter: 2 });
    const client = await connectIo(url);
    const reason = new Promise((resolve) => client.once('disconnect', resolve));
    for (let i = 0; i < 5; i++) client.emit('chat', i);
    expect(await reason).toBe('io server disconnect');
    expect(handled).toEqual(['/ chat 0', '/ chat 1']);
  });

  it('gives each namespace multiplexed on one connection its own budget', async () => {
    const clock = new ManualClock(t0);
    const { handled, url } = await start(
      { limiter: new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock }), events: { done: new FixedWindowLimiter({ limit: 9, windowMs: 1000, clock, name: 'done' }) } },
      ['/', '/game'],
    );
    const root = await connectIo(url);
    const game = await connectIo(`${url}/game`);
    for (let i = 0; i < 4; i++) {
      root.emit('chat', i);
      game.emit('move', i);
    }
    await Promise.all([done(root), done(game)]);
    expect(handled.sort()).toEqual(['/ chat 0', '/ chat 1', '/game move 0', '/game move 1']);
    root.disconnect();
    game.disconnect();
  });

  it('shares a user’s budget between the user’s sockets', async () => {
    const clock = new ManualClock(t0);
    const { handled, url } = await start({
      limiter: new FixedWindowLimiter({ limit: 3, windowMs: 1000, clock }),
      key: () => 'ada',
      events: { done: new FixedWindowLimiter({ limit: 9, windowMs: 1000, clock, name: 'done' }) },
    });
    const a = await connectIo(url);
    const b = await connectIo(url);
    for (let i = 0; i < 3; i++) {
      a.emit('chat', `a${i}`);
      b.emit('chat', `b${i}`);
    }
    await Promise.all([done(a), done(b)]);
    expect(handled).toHaveLength(3);
    a.disconnect();
    b.disconnect();
  });

  it('refuses invalid options at construction', () => {
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 1000 });
    expect(() => eventLimit({ limiter, events: { chat: 5 as never } })).toThrow(
      new TypeError('eventLimit: events["chat"]: limiter must be a RateLimiter (from @ratekeeper/core), got 5'),
    );
    expect(() => eventLimit({ limiter, warningEvent: '' })).toThrow(TypeError);
    expect(() => eventLimit({ limiter, cost: 2 as never })).toThrow(new TypeError('eventLimit: cost must be a function, got 2'));
  });
});
