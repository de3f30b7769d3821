/**
 * Limits from who the caller is, through a real app of the driver's framework: async `key`, `skip`,
 * `cost` and `plan` hooks are awaited and count exactly what the same answers would synchronously (an
 * adapter that does not await the key puts every caller in one bucket: mutant); a rejected hook goes
 * to the error path, uncounted; a client gone while its key was being looked up is not counted and
 * raises nothing; the decision reaches the route on the request; plans answer each caller with its own
 * plan's policy and body.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver, RequestView } from '../driver.js';
import { counting } from '../support.js';

const window = (limit: number, name: string, clock = new ManualClock(0)) => new FixedWindowLimiter({ limit, windowMs: 60_000, name, clock });
const lookup = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
/** tenantOf is an async API-key lookup, as a database or cache would answer it. */
const tenantOf = (req: RequestView) => lookup(`tenant:${req.header('x-api-key') ?? 'none'}`);

/** perCaller sends callers a, a, b, b, a to a limit of 2 keyed by tenantOf, and answers their statuses. */
export async function perCaller<F>(driver: Driver<F>, factory: F): Promise<number[]> {
  const { http } = driver.serve({ limiter: window(2, 'w'), key: tenantOf }, { factory });
  const statuses: number[] = [];
  for (const caller of ['a', 'a', 'b', 'b', 'a']) statuses.push((await http.get('/').set('X-Api-Key', caller)).status);
  return statuses;
}

/**
 * goneClientUncounted: a client that closes its connection while its key is being looked up is not
 * counted, the route does not run and nothing reaches the error path; the next client is served.
 */
export async function goneClientUncounted<F>(driver: Driver<F>, factory: F): Promise<void> {
  const counted = counting(window(5, 'w'));
  const waiting: (() => void)[] = [];
  const key = (req: RequestView) => new Promise<string>((resolve) => waiting.push(() => resolve(req.header('x-api-key') ?? 'none')));
  const closed: Promise<void>[] = [];
  const before = (req: { socket: { once(event: 'close', done: () => void): unknown } }) => void closed.push(new Promise((done) => req.socket.once('close', () => done())));
  const { server, http, errors, ran } = driver.serve({ limiter: counted.limiter, key }, { before, factory });
  if (!server.listening) await new Promise((done) => server.once('listening', done));
  const client = httpRequest({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/', headers: { 'x-api-key': 'gone' } });
  client.on('error', () => {});
  client.end();
  while (waiting.length === 0) await new Promise(setImmediate);
  client.destroy();
  await closed[0];
  waiting.shift()!();
  for (let i = 0; i < 3; i++) await new Promise(setImmediate);
  expect([counted.keys, errors, ran()], 'gone client: keys counted, errors, route runs').toEqual([[], [], 0]);
  const next = http.get('/').set('X-Api-Key', 'here');
  const answered = next.then((res) => res.status);
  while (waiting.length === 0) await new Promise(setImmediate);
  waiting.shift()!();
  expect(await answered).toBe(200);
  expect(counted.keys).toEqual(['here']);
}

/** perCallerSuite runs the checks above; `ignoresGone` (optional) is an adapter that counts gone clients. */
export function perCallerSuite<F>(drivers: readonly Driver<F>[], mutant: { unawaitedKey: F; ignoresGone?: F }): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      it('counts each caller under the key an async lookup found', async () => {
        expect(await perCaller(driver, driver.rateLimit)).toEqual([200, 200, 200, 200, 429]);
      });

      it('the same check catches an adapter that does not await the key (mutant)', async () => {
        expect(await perCaller(driver, mutant.unawaitedKey)).not.toEqual([200, 200, 200, 200, 429]);
      });

      it('awaits async skip and cost', async () => {
        const counted = counting(window(5, 'w'));
        const { http, ran } = driver.serve({
          limiter: counted.limiter,
          skip: (req) => lookup(req.header('x-internal') === 'yes'),
          cost: (req) => lookup(Number(req.query('n') ?? 1)),
        });
        await http.get('/').set('X-Internal', 'yes').expect(200);
        await http.get('/?n=3').expect(200).expect('RateLimit', '"w";r=2;t=60');
        await http.get('/?n=3').expect(429);
        expect(counted.costs).toEqual([3, 3]);
        expect(ran()).toBe(2);
      });

      it('sends a rejected lookup to the error path, uncounted', async () => {
        const counted = counting(window(5, 'w'));
        const broken = new Error('api key store down');
        const { http, errors, ran } = driver.serve({ limiter: counted.limiter, key: () => Promise.reject(broken) });
        expect((await http.get('/')).status).toBe(500);
        expect(errors).toEqual([broken]);
        expect([counted.keys, ran()]).toEqual([[], 0]);
      });

      it('does not count a client that went away while its key was looked up, and raises nothing', async () => {
        await goneClientUncounted(driver, driver.rateLimit);
      });

      if (mutant.ignoresGone !== undefined) {
        const ignoresGone = mutant.ignoresGone;
        it('the same check catches an adapter that counts a client gone during the lookup (mutant)', async () => {
          await expect(goneClientUncounted(driver, ignoresGone)).rejects.toThrow(/gone client/);
        });
      }

      it('leaves the decision, policy included, on the request for the route', async () => {
        const { http, decisions = [] } = driver.serve({ limiter: window(2, 'w'), key: tenantOf });
        await http.get('/').set('X-Api-Key', 'a').expect(200);
        await http.get('/').set('X-Api-Key', 'a').expect(200);
        expect(decisions.map((d) => [d?.allowed, d?.remaining, d?.policy.name])).toEqual([
          [true, 1, 'w'],
          [true, 0, 'w'],
        ]);
      });

      it('answers each caller by its plan, found asynchronously: its limit, RateLimit-Policy and body', async () => {
        const clock = new ManualClock(0);
        const plans = { free: window(1, 'free', clock), pro: window(3, 'pro', clock) };
        const tiers: Record<string, string> = { k1: 'free', k2: 'pro' };
        const { http, decisions = [] } = driver.serve({ plans, plan: (req) => lookup(tiers[req.header('x-api-key') ?? ''] ?? 'free'), key: tenantOf });
        const sent: string[] = [];
        for (const k of ['k1', 'k1', 'k2', 'k2', 'k2', 'k2']) {
          const res = await http.get('/').set('X-Api-Key', k);
          sent.push(`${k} ${res.status} ${res.headers['ratelimit-policy']}${res.status === 429 ? ` ${JSON.parse(res.text)['violated-policies']}` : ''}`);
        }
        expect(sent).toEqual([
          'k1 200 "free";q=1;w=60',
          'k1 429 "free";q=1;w=60 free',
          'k2 200 "pro";q=3;w=60',
          'k2 200 "pro";q=3;w=60',
          'k2 200 "pro";q=3;w=60',
          'k2 429 "pro";q=3;w=60 pro',
        ]);
        expect(decisions.map((d) => d?.policy.name)).toEqual(['free', 'pro', 'pro', 'pro']);
      });
    });
  }
}
