// The WebSocket example through real sockets, with a ManualClock: the ws echo's burst of 5, one
// warning per streak and the close with 1008 at the 5th refusal; socket.io's chat at 3 at once with
// its warning event; and the 11th upgrade of a minute answered 429 before the handshake.
import { ManualClock } from '@ratekeeper/core';
import { io as connect } from 'socket.io-client';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from './app.mjs';

let app;
afterEach(async () => {
  app?.io.close();
});

async function start() {
  const clock = new ManualClock(Date.UTC(2025, 0, 1));
  app = createApp({ clock });
  await new Promise((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  return { clock, port: app.server.address().port };
}

const opened = (url) =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });

describe('the WebSocket example', () => {
  it('echoes a burst of 5, warns once, and closes with 1008 at the 5th refusal', async () => {
    const { port } = await start();
    const socket = await opened(`ws://127.0.0.1:${port}/chat`);
    const frames = [];
    socket.on('message', (data) => frames.push(String(data)));
    const closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve([code, String(reason)])));
    for (let i = 1; i <= 12; i++) socket.send(`m${i}`);
    expect(await closed).toEqual([1008, 'rate limit exceeded']);
    expect(frames).toEqual(['echo: m1', 'echo: m2', 'echo: m3', 'echo: m4', 'echo: m5', '{"error":"rate_limited","retryAfterSeconds":1}']);
  });

  it('passes 3 chat events at once on socket.io, warns for the rest, and passes again a second later', async () => {
    const { clock, port } = await start();
    const client = connect(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false, forceNew: true });
    await new Promise((resolve) => client.once('connect', resolve));
    const chats = [];
    const warned = new Promise((resolve) => client.once('rate_limited', resolve));
    client.on('chat', (text) => chats.push(text));
    for (let i = 1; i <= 5; i++) client.emit('chat', `c${i}`);
    expect(await warned).toEqual({ retryAfterSeconds: 1, denials: 1, event: 'chat' });
    clock.advance(1000);
    const next = new Promise((resolve) => client.on('chat', (text) => text === 'c6' && resolve()));
    client.emit('chat', 'c6');
    await next;
    expect(chats).toEqual(['c1', 'c2', 'c3', 'c6']);
    client.disconnect();
  });

  it('answers the 11th upgrade of a minute with 429 before the handshake', async () => {
    const { port } = await start();
    const sockets = [];
    for (let i = 0; i < 10; i++) sockets.push(await opened(`ws://127.0.0.1:${port}/chat`));
    const status = await new Promise((resolve) =>
      new WebSocket(`ws://127.0.0.1:${port}/chat`).once('unexpected-response', (_req, res) => resolve([res.statusCode, res.headers['retry-after']])),
    );
    expect(status).toEqual([429, '60']);
    for (const socket of sockets) socket.terminate();
  });
});
