/**
 * The upgrade limited before the handshake: `limitUpgrades` in front of a `ws` server and of a
 * socket.io server on real HTTP servers. Past the limit an upgrade is answered 429 with Retry-After
 * in whole seconds (rounded up), the RateLimit fields and a problem+json body, and no WebSocket opens.
 */
import { request } from 'node:http';
import { FixedWindowLimiter, ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { limitUpgrades } from '../src/index.js';
import { connectIo, type IoServed, open, serveIo, serveWs, type WsServed } from './support/servers.js';

let served: WsServed | IoServed | undefined;
afterEach(async () => served?.close());

/** refused attempts an upgrade that must be refused, answering its status, headers and body. */
function refused(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const socket = new WebSocket(url);
  return new Promise((resolve, reject) => {
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
  });
}

describe('limitUpgrades', () => {
  it('answers 429 before the handshake once a client IP has spent its upgrades, on a ws server', async () => {
    const clock = new ManualClock(Date.UTC(2025, 0, 1));
    served = await serveWs(() => {});
    limitUpgrades(served.http, { limiter: new FixedWindowLimiter({ limit: 2, windowMs: 10_000, clock, name: 'upgrades' }) });
    (await open(served.url)).close();
    (await open(served.url)).close();
    const third = await refused(served.url);
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('10');
    expect(third.headers['ratelimit-policy']).toBe('"upgrades";q=2;w=10');
    expect(third.headers['ratelimit']).toBe('"upgrades";r=0;t=10');
    expect(third.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(third.body)).toMatchObject({ status: 429, 'violated-policies': ['upgrades'] });
    clock.advance(10_000);
    (await open(served.url)).close();
  });

  it('keys by key(req) when given, and leaves plain HTTP requests alone', async () => {
    const clock = new ManualClock(0);
    served = await serveWs(() => {});
    const { http } = served;
    http.on('request', (_req, res) => res.end('plain'));
    limitUpgrades(http, { limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock }), key: (req) => String(req.headers['x-user']) });
    const as = (user: string) => new WebSocket(served?.url as string, { headers: { 'x-user': user } });
    await new Promise((resolve) => as('ada').once('open', resolve));
    await new Promise((resolve) => as('bob').once('open', resolve));
    const again = await new Promise<number>((resolve) => as('ada').once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)));
    expect(again).toBe(429);
    const port = new URL(served.url).port;
    const plain = await new Promise<string>((resolve) => request(`http://127.0.0.1:${port}/`, (res) => res.setEncoding('utf8').on('data', resolve)).end());
    expect(plain).toBe('plain');
    for (const client of served.wss.clients) client.terminate();
  });

  it('guards socket.io’s own upgrade listener', async () => {
    const clock = new ManualClock(0);
    const io = await serveIo(() => {});
    served = io;
    const http = (io.io as unknown as { httpServer: import('node:http').Server }).httpServer;
    limitUpgrades(http, { limiter: new FixedWindowLimiter({ limit: 1, windowMs: 1000, clock }) });
    const first = await connectIo(io.url);
    first.disconnect();
    await expect(connectIo(io.url)).rejects.toThrow();
  });

  it('refuses invalid options at construction', async () => {
    const ws = await serveWs(() => {});
    served = ws;
    expect(() => limitUpgrades(ws.http, { limiter: 1 } as never)).toThrow(new TypeError('limitUpgrades: limiter must be a RateLimiter (from @ratekeeper/core), got 1'));
    expect(() => limitUpgrades(ws.http, { limiter: new FixedWindowLimiter({ limit: 1, windowMs: 1 }), key: 'ip' } as never)).toThrow(
      new TypeError('limitUpgrades: key must be a function, got "ip"'),
    );
  });
});
