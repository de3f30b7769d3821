/**
 * The behaviour every example server promises, run against each of them through a real socket on
 * 127.0.0.1 (so the framework, the adapter and core are all in the path) with a ManualClock: exact
 * counts at fixed instants, no sleeping. `start(clock)` listens on a free port and resolves to
 * `{ url, close }`.
 *
 * t0 is the start of a minute, so every window boundary below is known: the sliding windows are
 * aligned to multiples of their length since the epoch.
 */
import { afterEach, describe, expect, it } from 'vitest';

const t0 = Date.UTC(2025, 0, 1, 12, 0, 0);

/**
 * `stacked`: the global limiter also runs on routes that have their own (Express, Koa), so its item
 * leads each RateLimit and RateLimit-Policy List there; on Fastify a route's own limit replaces it.
 */
export function exampleSuite(framework, { start, ManualClock, stacked = false }) {
  /** own returns a route's items of a List header, checking and removing the global item first. */
  const own = (value) => {
    if (!stacked) return value;
    const [global, ...rest] = value.split(', ');
    expect(global).toMatch(/^"global";(q=100;w=10|r=\d+;t=\d+)$/);
    return rest.join(', ');
  };
  describe(`the ${framework} example`, () => {
    let server;
    let clock;
    const open = async () => {
      clock = new ManualClock(t0);
      server = await start(clock);
    };
    const send = (method, path, headers = {}) => fetch(server.url + path, { method, headers });
    const burst = async (method, path, n) => {
      const statuses = [];
      for (let i = 0; i < n; i++) statuses.push((await send(method, path)).status);
      return statuses;
    };
    afterEach(async () => server?.close());

    it('answers GET / under the global token bucket of 100', async () => {
      await open();
      const res = await send('GET', '/');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ hello: 'world' });
      expect(res.headers.get('ratelimit-policy')).toBe('"global";q=100;w=10');
      expect(res.headers.get('ratelimit')).toBe('"global";r=99;t=1');
    });

    it('denies the 101st request of an instant by the global limit, for one tenth of a second', async () => {
      await open();
      expect(await burst('GET', '/', 100)).toEqual(new Array(100).fill(200));
      const denied = await send('GET', '/');
      expect(denied.status).toBe(429);
      expect(denied.headers.get('retry-after')).toBe('1');
      expect((await denied.json())['violated-policies']).toEqual(['global']);
      clock.advance(100);
      expect((await send('GET', '/')).status).toBe(200);
    });

    it('admits 5 logins a minute and is allowed again once Retry-After has passed', async () => {
      await open();
      expect(await burst('POST', '/login', 6)).toEqual([200, 200, 200, 200, 200, 429]);
      const denied = await send('POST', '/login');
      expect(denied.status).toBe(429);
      expect(denied.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      // 5 counted at t0: the estimate 5·(60 − e)/60 + 1 first fits under 5 at e = 12 s into the next minute.
      expect(denied.headers.get('retry-after')).toBe('72');
      expect((await denied.json())['violated-policies']).toEqual(['login']);
      clock.advance(71_999);
      expect((await send('POST', '/login')).status).toBe(429);
      clock.advance(1);
      expect((await send('POST', '/login')).status).toBe(200);
    });

    it('keys logins by the socket address, so a spoofed X-Forwarded-For changes nothing', async () => {
      await open();
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await send('POST', '/login', { 'x-forwarded-for': `203.0.113.${i}` })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    });

    it('limits /search per second and per minute, and a denial by one member costs the other nothing', async () => {
      await open();
      expect(await burst('GET', '/search', 6)).toEqual([200, 200, 200, 200, 200, 429]);
      const perSecond = await send('GET', '/search');
      expect(perSecond.headers.get('retry-after')).toBe('1');
      expect(own(perSecond.headers.get('ratelimit-policy'))).toBe('"search-1s";q=5;w=1, "search-1m";q=8;w=60');
      expect(own(perSecond.headers.get('ratelimit'))).toBe('"search-1s";r=0;t=1, "search-1m";r=3;t=120');
      expect((await perSecond.json())['violated-policies']).toEqual(['search-1s']);

      clock.advance(1_000);
      expect(await burst('GET', '/search', 3)).toEqual([200, 200, 200]);
      const perMinute = await send('GET', '/search');
      expect(perMinute.status).toBe(429);
      // 8 counted in the minute from t0: 8·(60 − e)/60 + 1 ≤ 8 first holds at e = 7.5 s, 66.5 s after t0 + 1 s.
      expect(perMinute.headers.get('retry-after')).toBe('67');
      expect(own(perMinute.headers.get('ratelimit'))).toBe('"search-1s";r=2;t=1, "search-1m";r=0;t=67');
      expect((await perMinute.json())['violated-policies']).toEqual(['search-1m']);
    });
  });
}
