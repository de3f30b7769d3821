// The tRPC example through a real tRPC client over a real socket on 127.0.0.1, at fixed instants on a
// ManualClock: the global bucket, the login limit with an honest Retry-After, the composite search
// limit, and a batch counted one per call.
import { ManualClock } from '@ratekeeper/core';
import { createTRPCClient, httpBatchLink, httpLink } from '@trpc/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from './app.mjs';

const t0 = Date.UTC(2025, 0, 1, 12, 0, 0);
let server;
afterEach(() => server?.close());

async function start() {
  const clock = new ManualClock(t0);
  server = createApp({ clock }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { clock, url, client: createTRPCClient({ links: [httpLink({ url: `${url}/trpc` })] }), batch: createTRPCClient({ links: [httpBatchLink({ url: `${url}/trpc` })] }) };
}

const outcome = (promise) =>
  promise.then(
    () => 'ok',
    (error) => error.data?.code,
  );

describe('the tRPC example', () => {
  it('answers hello under the global bucket of 100, with its fields', async () => {
    const { url, client } = await start();
    expect(await client.hello.query()).toEqual({ hello: 'world' });
    const res = await fetch(`${url}/trpc/hello`);
    expect(res.headers.get('ratelimit-policy')).toBe('"global";q=100;w=10');
    expect(res.headers.get('ratelimit')).toBe('"global";r=98;t=1');
  });

  it('admits 5 logins a minute, denies the 6th with Retry-After 72 and the wait in error.data, admits it then', async () => {
    const { clock, url, client } = await start();
    const outcomes = [];
    for (let i = 0; i < 6; i++) outcomes.push(await outcome(client.login.mutate()));
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'TOO_MANY_REQUESTS']);
    const denied = await fetch(`${url}/trpc/login`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(denied.status).toBe(429);
    expect(denied.headers.get('retry-after')).toBe('72');
    expect((await denied.json()).error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', retryAfterSeconds: 72 });
    clock.advance(71_999);
    expect(await outcome(client.login.mutate())).toBe('TOO_MANY_REQUESTS');
    clock.advance(1);
    expect(await outcome(client.login.mutate())).toBe('ok');
  });

  it('limits search per second and per minute, and counts each call of a batch', async () => {
    const { clock, batch } = await start();
    const first = await Promise.all(Array.from({ length: 6 }, (_, i) => outcome(batch.search.query(`q${i}`))));
    expect(first).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'TOO_MANY_REQUESTS']);
    clock.advance(1_000);
    const second = await Promise.all(Array.from({ length: 4 }, (_, i) => outcome(batch.search.query(`r${i}`))));
    expect(second).toEqual(['ok', 'ok', 'ok', 'TOO_MANY_REQUESTS']);
  });
});
