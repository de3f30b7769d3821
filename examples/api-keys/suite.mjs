/**
 * The behaviour of API-key example, on the memory store (app.test.mjs) and on Redis
 * (examples/redis/callers.test.mjs): `store` makes a fresh store per test, or is undefined for memory.
 */
import { once } from 'node:events';
import { ManualClock } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from './app.mjs';

export function apiKeysSuite(where, store) {
  const t0 = Date.UTC(2025, 0, 1, 12, 0, 0);
  let server;
  let url;
  let app;
  /**
   * drained waits until the free plan's key is empty: the settle lands after the response, at once on
   * memory, one or two round trips later on Redis (a client that fires its next request at once can
   * be decided before it). Bounded: it fails rather than hangs.
   */
  const drained = async () => {
    for (let i = 0; i < 1000; i++) {
      if (!(await app.locals.plans.free.peek('tenant:acme')).allowed) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error('the free plan was never drained');
  };
  // Registered beside other suites' hooks (examples/redis runs two suites in one describe): only close what this one opened.
  afterEach(() => server && new Promise((done) => server.close(done)).then(() => (server = undefined)));

  async function open() {
    const clock = new ManualClock(t0);
    app = createApp({ clock, store: store?.() });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${server.address().port}`;
    return clock;
  }

  const get = (path, key) => fetch(url + path, { headers: key === undefined ? {} : { 'x-api-key': key } });

  describe(`the API-key example on ${where}`, () => {
    it('answers 401 to an unknown key, uncounted', async () => {
      await open();
      expect((await get('/reports/1', 'nope')).status).toBe(401);
      expect((await get('/reports/1')).status).toBe(401);
    });

    it('charges the free plan by response size: 10 KiB a minute, then 429 with the free policy', async () => {
      const clock = await open();
      // A 3 KiB report plus its JSON wrapping is 4 units: 1 up front, 3 more once it is sent.
      const first = await get('/reports/3', 'free-key-1');
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-policy')).toBe('"free";q=10;w=60');
      expect((await first.json()).plan).toBe('free');
      expect((await get('/reports/3', 'free-key-1')).headers.get('ratelimit')).toMatch(/^"free";r=5;t=\d+$/);
      const third = await get('/reports/3', 'free-key-1');
      expect(third.headers.get('ratelimit')).toMatch(/^"free";r=1;t=\d+$/);
      await third.text(); // its 3 more units do not fit: the key is drained to empty, never beyond
      await drained();
      const denied = await get('/reports/0', 'free-key-1');
      expect(denied.status).toBe(429);
      expect((await denied.json())['violated-policies']).toEqual(['free']);
      clock.advance(6_000); // one unit comes back every 6 s
      expect((await get('/reports/0', 'free-key-1')).status).toBe(200);
      expect((await get('/reports/0', 'free-key-1')).status).toBe(429);
    });

    it('gives the pro plan its own, larger budget and policy', async () => {
      await open();
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await get('/reports/15', 'pro-key-1')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      const res = await get('/reports/0', 'pro-key-1');
      expect(res.headers.get('ratelimit-policy')).toBe('"pro";q=100;w=60');
      expect(res.headers.get('ratelimit')).toMatch(/^"pro";r=19;t=\d+$/); // 5 × 16 units spent
    });
  });
}
