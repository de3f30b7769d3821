/**
 * The adapter contract over real HTTP, against a server this process cannot reach into (Bun, Deno,
 * workerd, or Node behind a bridge): the checks of the contract's retry, options, IP and faults
 * suites that a fixed scenario can express (servers/scenarios.mjs), for the fetch adapter (`f`) and
 * the Hono middleware (`h`). Each test uses fresh scenario instances; the server's ManualClock moves
 * only through /__clock, so every figure is exact. With `outcomes` 'completed', countOutcome and
 * settle after the response (failed responses given back, the cost settled by the bytes read); with
 * 'all', also a stream the client left mid-way (an outcome with aborted: true) and a client gone
 * during an async key lookup (its Request's signal aborted by the runtime), not counted.
 */
import { ipKey } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';

export type Flavor = 'f' | 'h';
const NAMES: Record<Flavor, string> = { f: '@ratekeeper/fetch', h: '@ratekeeper/hono' };
const PROBLEM = {
  type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
  title: 'Request cannot be satisfied as assigned quota has been exceeded',
  status: 429,
};

let instance = 0;

/** runtimeSuite runs the HTTP contract against `url()` for each flavor the server serves; `headers` go on every request. */
export function runtimeSuite(
  runtime: string,
  url: () => string,
  flavors: readonly Flavor[],
  { redis = false, outcomes = 'none' as 'none' | 'completed' | 'all', headers: always = {} as Record<string, string> } = {},
): void {
  const clock = async (query: string) => void (await (await fetch(`${url()}/__clock?${query}`)).text());
  const advance = (ms: number) => clock(`advance=${ms}`);
  for (const flavor of flavors) {
    describe(`${NAMES[flavor]} on ${runtime}`, () => {
      const path = (scenario: string) => `${url()}/${flavor}/${scenario}/${++instance}`;
      // `always`: headers a proxy in front of the runtime would add to every request (x-real-ip for Next).
      const get = (target: string, headers: Record<string, string> = {}) => fetch(target, { headers: { ...always, ...headers } });

      it('admits the bucket, then answers 429 with Retry-After, RateLimit fields and the problem body, and admits exactly when the wait ends', async () => {
        const target = path('bucket');
        const seen = [];
        for (let i = 0; i < 3; i++) {
          const res = await get(target);
          const body = (await res.json()) as { ip: string; remaining?: number | null };
          seen.push([res.status, res.headers.get('ratelimit'), ipKey(body.ip), body.remaining ?? null]);
        }
        const remaining = flavor === 'h' ? [2, 1, 0] : [null, null, null];
        expect(seen).toEqual([
          [200, '"b";r=2;t=1', '127.0.0.1', remaining[0]],
          [200, '"b";r=1;t=2', '127.0.0.1', remaining[1]],
          [200, '"b";r=0;t=3', '127.0.0.1', remaining[2]],
        ]);
        const denied = await get(target);
        expect([
          denied.status,
          denied.headers.get('retry-after'),
          denied.headers.get('ratelimit'),
          denied.headers.get('ratelimit-policy'),
          denied.headers.get('content-type'),
        ]).toEqual([429, '1', '"b";r=0;t=1', '"b";q=3;w=3', 'application/problem+json']);
        expect(await denied.json()).toEqual({ ...PROBLEM, detail: 'Retry after 1 s.', 'violated-policies': ['b'] });
        await advance(999);
        expect((await get(target)).status).toBe(429);
        await advance(1);
        expect((await get(target)).status).toBe(200);
      });

      it("rateLimit({ algorithm: 'token-bucket' }) admits exactly its documented 60", async () => {
        const target = path('default');
        const statuses: number[] = [];
        let policy: string | null = null;
        for (let i = 0; i < 61; i++) {
          const res = await get(target);
          policy ??= res.headers.get('ratelimit-policy');
          statuses.push(res.status);
          await res.arrayBuffer();
        }
        expect([statuses.filter((s) => s === 200).length, statuses[60], policy]).toEqual([60, 429, '"tb-60-1";q=60;w=60']);
      });

      it('answers the composite wait of the member that blocks longest, and admits exactly then', async () => {
        const target = path('composite');
        await clock('align=60000'); // the sliding window's fixed windows start at multiples of 60 s
        for (let i = 0; i < 3; i++) {
          expect((await get(target)).status).toBe(200);
          await advance(1000);
        }
        const denied = await get(target);
        expect([denied.status, denied.headers.get('retry-after'), denied.headers.get('ratelimit')]).toEqual([429, '77', '"burst";r=2;t=0, "minute";r=0;t=77']);
        expect(((await denied.json()) as Record<string, unknown>)['violated-policies']).toEqual(['minute']);
        await advance(76_999);
        expect((await get(target)).status).toBe(429);
        await advance(1);
        expect((await get(target)).status).toBe(200);
      });

      it('groups IPv6 by /56 and counts an IPv4-mapped address as the IPv4 one', async () => {
        const target = path('header-ip');
        const statuses = [];
        for (const ip of ['2001:db8:ab:cd00::1', '2001:db8:ab:cdff:ffff::2', '2001:db8:ab:ce00::1', '::ffff:102:304', '1.2.3.4'])
          statuses.push((await get(target, { 'x-test-ip': ip })).status);
        expect(statuses).toEqual([200, 429, 200, 200, 429]);
      });

      it('never counts a request without a usable address in a shared bucket: 500 by default, uncounted with missingIp skip', async () => {
        const target = path('header-ip');
        const statuses = [];
        for (const ip of [undefined, 'unknown', '']) statuses.push((await get(target, ip === undefined ? {} : { 'x-test-ip': ip })).status);
        statuses.push((await get(target, { 'x-test-ip': '192.0.2.1' })).status);
        expect(statuses).toEqual([500, 500, 500, 200]);
        const skipping = path('header-ip-skip');
        const skipped = [];
        for (let i = 0; i < 3; i++) {
          const res = await get(skipping);
          skipped.push([res.status, res.headers.get('ratelimit')]);
        }
        expect(skipped).toEqual([
          [200, null],
          [200, null],
          [200, null],
        ]);
      });

      it("answers a 'closed' store failure with 503, Retry-After and the temporary-reduced-capacity problem", async () => {
        const res = await get(path('closed'));
        expect([res.status, res.headers.get('retry-after'), res.headers.get('content-type')]).toEqual([503, '1', 'application/problem+json']);
        expect(await res.json()).toEqual({
          type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
          title: 'Service temporarily unable to apply its rate limits',
          status: 503,
        });
      });

      it('answers a limiter that rejects with a secret with a 500 that does not contain the secret', async () => {
        for (let i = 0; i < 2; i++) {
          const res = await get(path('secret'));
          const text = await res.text();
          expect(res.status).toBe(500);
          expect(JSON.stringify([...res.headers]) + text).not.toContain('hunter2');
        }
      });

      if (outcomes !== 'none') outcomeTests(path, get, outcomes === 'all', { advance, mutant: flavor === 'f' });

      if (redis) {
        it('counts in a real Redis through ioredis with the same exact figures', async () => {
          const target = path('redis');
          const seen = [];
          for (let i = 0; i < 3; i++) {
            const res = await get(target);
            seen.push([res.status, res.headers.get('ratelimit'), res.headers.get('retry-after')]);
            await res.arrayBuffer();
          }
          expect(seen).toEqual([
            [200, '"r";r=1;t=1', null],
            [200, '"r";r=0;t=2', null],
            [429, '"r";r=0;t=1', '1'],
          ]);
          await advance(1000);
          expect((await get(target)).status).toBe(200);
        });
      }
    });
  }
}

interface Record_ {
  readonly outcomes: { status: number; aborted: boolean; contentLength?: number }[];
  readonly waiting: number;
  readonly keyed: number;
  readonly aborted: number;
  readonly ran: number;
  readonly remaining: number;
  readonly allowed: boolean;
}

/** outcomeTests: countOutcome, settle, an aborted stream and a gone client, read back through `?state`. */
function outcomeTests(
  path: (scenario: string) => string,
  get: (target: string) => Promise<Response>,
  held: boolean,
  { advance, mutant }: { advance: (ms: number) => Promise<void>; mutant: boolean },
): void {
  const state = async (target: string): Promise<Record_> => (await fetch(`${target}?state`)).json() as Promise<Record_>;
  /** until asks the server for its record until `done` holds (each ask is a request: no sleeping). */
  const until = async (target: string, done: (r: Record_) => boolean): Promise<Record_> => {
    for (let i = 0; i < 5000; i++) {
      const r = await state(target);
      if (done(r)) return r;
    }
    throw new Error(`never reached: ${JSON.stringify(await state(target))}`);
  };

  it('gives failed responses their charge back (countOutcome), exactly', async () => {
    const target = path('outcome');
    const statuses: number[] = [];
    for (const q of ['?status=503', '?status=404', '', '', '', '?status=503']) {
      const res = await get(`${target}${q}`);
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([503, 404, 200, 200, 429, 429]);
    expect((await state(target)).outcomes.map((o) => o.status)).toEqual([503, 404, 200, 200]);
  });

  it('settles a HEAD request at once, not as aborted (its body never goes out)', async () => {
    const target = path('outcome');
    const res = await fetch(`${target}?status=404`, { method: 'HEAD' });
    await res.arrayBuffer();
    const r = await state(target);
    expect([res.status, r.outcomes, r.remaining]).toEqual([404, [{ status: 404, aborted: false }], 1]);
  });

  it('settles the cost by the bytes the runtime read, to the exact unit', async () => {
    const target = path('settle');
    for (const bytes of [250, 10]) await (await get(`${target}?bytes=${bytes}`)).arrayBuffer();
    const r = await state(target);
    expect([r.outcomes, r.remaining]).toEqual([
      [
        { status: 200, aborted: false, contentLength: 250 },
        { status: 200, aborted: false, contentLength: 10 },
      ],
      10 - 3 - 1 - 1,
    ]);
  });

  // Both hold a request on a promise nothing resolves but the test: workerd cancels such a request as hung.
  if (!held) return;

  it('sees a stream the client left mid-way as an outcome with aborted: true, and gives it back', async () => {
    const target = path('aborted');
    const client = new AbortController();
    const res = await fetch(`${target}?stream`, { signal: client.signal });
    await res.body!.getReader().read();
    client.abort();
    const r = await until(target, (s) => s.outcomes.length > 0);
    expect([r.outcomes, r.remaining]).toEqual([[{ status: 200, aborted: true }], 1]);
  });

  it('does not count a client that went away while its key was looked up, nor run the route', async () => {
    const target = path('gone');
    const client = new AbortController();
    const gone = fetch(target, { signal: client.signal }).catch(() => 'aborted');
    await until(target, (s) => s.waiting === 1);
    client.abort();
    expect(await gone).toBe('aborted');
    await until(target, (s) => s.aborted === 1);
    await fetch(`${target}?release`);
    const next = get(target);
    await until(target, (s) => s.waiting === 1);
    await fetch(`${target}?release`);
    expect((await next).status).toBe(200);
    const r = await state(target);
    expect([r.ran, r.remaining]).toEqual([1, 5 - 1 - 1]);
  });

  /**
   * heldThenGone spends the bucket, holds a second request (delay mode), lets its client go, moves the
   * clock to the instant it would have gone, and answers [route runs, whether key k admits one more
   * then]: [1, true] when the booking was cancelled (the unit refilled is free), [1, false] when it
   * stayed (the booking took it).
   */
  const heldThenGone = async (target: string): Promise<[number, boolean]> => {
    expect((await get(target)).status).toBe(200);
    const client = new AbortController();
    const gone = fetch(target, { signal: client.signal }).catch(() => 'aborted');
    // The key is looked up at once and the booking made in the same turn: a second lookup means a held request.
    // Deno also aborts a request's signal once its response is over: count the aborts from here.
    const { aborted } = await until(target, (s) => s.keyed === 2);
    client.abort();
    expect(await gone).toBe('aborted');
    await until(target, (s) => s.aborted === aborted + 1);
    await advance(1000);
    const r = await state(target);
    return [r.ran, r.allowed];
  };

  it('delay mode: releases the wait of a client that went away (its signal aborted): the booking cancelled, the route not run', async () => {
    expect(await heldThenGone(path('delay'))).toEqual([1, true]);
  });

  if (mutant)
    it('the check catches a check that never hears the signal abort, so keeps the booking (mutant)', async () => {
      expect(await heldThenGone(path('delay-deaf'))).toEqual([1, false]);
    });
}
