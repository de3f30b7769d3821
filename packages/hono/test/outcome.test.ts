/**
 * Counting by outcome and settling the real cost on Hono over real HTTP: the adapter contract's
 * outcome suite (failed or successful responses given back, the cost settled by the bytes the
 * runtime read), plus what is Hono's own: an error the route throws, answered by app.onError, is the
 * 500 outcome it is, a HEAD request (answered by Hono with the GET route's Response minus its body,
 * never read) is settled, and a streamed response the client leaves mid-way is an outcome with
 * aborted: true.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outcomeSuite } from '@ratekeeper/adapter-contract';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { driver, serveApp } from './helpers.js';
import { type Finished } from '@ratekeeper/core/adapter';

outcomeSuite([driver]);

const window = (limit: number) => new FixedWindowLimiter({ limit, windowMs: 60_000, name: 'w', clock: new ManualClock(0) });

describe(`${driver.name}: outcomes of its own`, () => {
  it('gives back a request whose route threw, answered 500 by app.onError', async () => {
    const limiter = window(2);
    const app = new Hono();
    app.onError((_error, c) => c.text('broken', 500));
    app.use(rateLimit({ limiter, key: () => 'k', countOutcome: (o) => o.status < 400 }));
    app.get('/', (c) => {
      if (c.req.query('fail') !== undefined) throw new Error('route broke');
      return c.text('ok');
    });
    const { http } = serveApp(app);
    const statuses: number[] = [];
    for (const path of ['/?fail=1', '/?fail=1', '/', '/', '/']) statuses.push((await http.get(path)).status);
    expect(statuses).toEqual([500, 500, 200, 200, 429]);
  });

  it('settles a HEAD request, which Hono answers with the GET route minus its body (never read)', async () => {
    const limiter = window(2);
    const seen: Finished[] = [];
    const app = new Hono();
    app.use(rateLimit({ limiter, key: () => 'k', countOutcome: (o) => (seen.push(o), false) }));
    app.get('/', (c) => c.text('ok'));
    const { http } = serveApp(app);
    for (let i = 0; i < 3; i++) expect((await http.head('/')).status).toBe(200);
    expect([seen.length, seen[0]?.aborted, limiter.peek('k').remaining]).toEqual([3, false, 1]);
  });

  it('sees a streamed response the client left mid-way as an outcome with aborted: true, and gives it back', async () => {
    const limiter = window(2);
    const seen: Finished[] = [];
    let aborted!: () => void;
    const left = new Promise<void>((resolve) => (aborted = resolve));
    const app = new Hono();
    app.use(rateLimit({ limiter, key: () => 'k', countOutcome: (o) => (seen.push(o), !o.aborted) }));
    app.get('/', (c) =>
      stream(c, async (s) => {
        s.onAbort(aborted);
        await s.write('first chunk');
        await left;
      }),
    );
    const { server } = serveApp(app);
    if (!server.listening) await new Promise((done) => server.once('listening', done));
    const client = httpRequest({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, (res) => res.once('data', () => client.destroy()));
    client.on('error', () => {});
    client.end();
    await left;
    for (let i = 0; i < 5; i++) await new Promise(setImmediate);
    expect([seen, limiter.peek('k').remaining]).toEqual([[{ status: 200, aborted: true, contentLength: undefined }], 1]);
  });
});
