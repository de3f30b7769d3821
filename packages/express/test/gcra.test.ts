/**
 * The 'gcra' shorthand over real HTTP: `rateLimit({ algorithm: 'gcra', emissionIntervalMs, burst })`
 * admits `burst` requests at once, then one per emission interval, and says so in its headers (the
 * token bucket it aliases: capacity burst, refilled every emissionIntervalMs). A ManualClock: no sleep.
 */
import { listen } from '@ratekeeper/adapter-contract';
import { ManualClock } from '@ratekeeper/core';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe("rateLimit({ algorithm: 'gcra' })", () => {
  it('admits burst requests at once, then one per emission interval, with honest headers', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const app = express();
    app.use(rateLimit({ algorithm: 'gcra', emissionIntervalMs: 2000, burst: 2, clock }));
    app.get('/', (_req, res) => void res.send('ok'));
    const { http, server } = listen(app);
    const first = await http.get('/');
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"gcra-2000-2";q=2;w=4');
    expect((await http.get('/')).status).toBe(200);
    const denied = await http.get('/');
    expect(denied.status).toBe(429);
    expect(denied.headers['retry-after']).toBe('2');
    clock.advance(1999);
    expect((await http.get('/')).status).toBe(429);
    clock.advance(1);
    const again = await http.get('/');
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit']).toBe('"gcra-2000-2";r=0;t=4');
    server.close();
  });

  it('refuses GCRA options under another algorithm, naming the option', () => {
    // @ts-expect-error burst is no 'token-bucket' option: the type refuses it as run time does
    expect(() => rateLimit({ algorithm: 'token-bucket', burst: 5 })).toThrowError(
      new TypeError(
        "rateLimit: burst does not apply to algorithm 'token-bucket' ('token-bucket', takes capacity and refillPerSecond; to use burst, pick an algorithm that takes it: 'gcra')",
      ),
    );
  });
});
