/**
 * The behaviour of login example, on the memory store (app.test.mjs) and on Redis
 * (examples/redis/callers.test.mjs): `store` makes a fresh store per test, or is undefined for memory.
 */
import { once } from 'node:events';
import { ManualClock } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from './app.mjs';

export function loginSuite(where, store) {
  const t0 = Date.UTC(2025, 0, 1, 12, 0, 0);
  let server;
  let url;
  // Registered beside other suites' hooks (examples/redis runs two suites in one describe): only close what this one opened.
  afterEach(() => server && new Promise((done) => server.close(done)).then(() => (server = undefined)));

  async function open() {
    const clock = new ManualClock(t0);
    server = createApp({ clock, store: store?.() }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${server.address().port}`;
    return clock;
  }

  const login = (username, password) => fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });

  describe(`the login example on ${where}`, () => {
    it('counts only failed logins, then bans the username for an hour', async () => {
      const clock = await open();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await login('alice', 'correct horse')).status);
      for (let i = 0; i < 5; i++) statuses.push((await login('alice', 'guess')).status);
      expect(statuses).toEqual([200, 200, 200, 401, 401, 401, 401, 401]);
      const banned = await login('alice', 'correct horse');
      expect(banned.status).toBe(429);
      expect(banned.headers.get('retry-after')).toBe('3600');
      expect(banned.headers.get('ratelimit')).toBe('"login-failures";r=0;t=3600');
      expect((await login('bob', 'guess')).status).toBe(401);
      clock.advance(30 * 60_000);
      const still = await login('alice', 'correct horse');
      expect([still.status, still.headers.get('retry-after')]).toEqual([429, '1800']);
      clock.advance(30 * 60_000);
      expect((await login('alice', 'correct horse')).status).toBe(200);
    });
  });
}
