// Runs the shared example suite (../example-suite.mjs) against the NestJS example on both platforms
// (the module's global limit stacks with each route's own, as Express's does), then its GraphQL
// resolver and WebSocket gateway behind the same global limit.
import { ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { exampleSuite } from '../example-suite.mjs';
import { createApp } from './app.mjs';

const t0 = Date.UTC(2025, 0, 1, 12, 0, 0);

async function startOn(platform, clock) {
  const app = await createApp({ clock, platform });
  await app.listen(0, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${app.getHttpServer().address().port}`, close: () => app.close() };
}

for (const platform of ['express', 'fastify']) {
  exampleSuite(`NestJS (${platform})`, { start: (clock) => startOn(platform, clock), ManualClock, stacked: true });

  describe(`the NestJS example's GraphQL resolver and gateway (${platform})`, () => {
    it('counts the hello query and each gateway message under the global bucket of 100', async () => {
      const clock = new ManualClock(t0);
      const { url, close } = await startOn(platform, clock);
      try {
        const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello }' }) });
        expect(await res.json()).toEqual({ data: { hello: 'world' } });
        const ws = new WebSocket(`${url.replace('http', 'ws')}/ws`);
        await new Promise((resolve) => ws.once('open', resolve));
        const next = () => new Promise((resolve) => ws.once('message', (raw) => resolve(JSON.parse(String(raw)))));
        const answers = [];
        for (let i = 0; i < 99; i++) {
          ws.send(JSON.stringify({ event: 'echo', data: i }));
          answers.push((await next()).event);
        }
        ws.send(JSON.stringify({ event: 'echo', data: 'over' }));
        expect(await next()).toEqual({ event: 'rate-limited', data: { retryAfterMs: 100 } });
        expect(answers.filter((e) => e === 'echo')).toHaveLength(99);
        ws.close();
      } finally {
        await close();
      }
    }, 30_000);
  });
}
