/**
 * Side by side with the peers: one request schedule, several clients, through express-rate-limit
 * (its MemoryStore), @fastify/rate-limit (its LocalStore) and rate-limiter-flexible
 * (RateLimiterMemory), and through ratekeeper as MIGRATING.md ports each one (`{ windowMs, limit }` on
 * the Express and Fastify adapters, FirstRequestWindowLimiter for RateLimiterMemory), and, to show the
 * store changes nothing, the Express adapter on a RedisStore in client time. Every request must get the
 * same status, the same Retry-After and the same remaining, request by request; rate-limiter-flexible's
 * msBeforeNext must equal ratekeeper's figure in milliseconds. Time is controlled: the peers read
 * Date.now (vitest's fake Date, moved with vi.setSystemTime), ratekeeper a ManualClock set to the same
 * instant. The schedule starts 7.3 s into an aligned 10 s window, where an aligned window would answer
 * differently (Retry-After 3 where the peers say 10).
 */
import { FirstRequestWindowLimiter, FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { rateLimit as ratekeeperExpress } from '@ratekeeper/express';
import { rateLimit as ratekeeperFastify } from '@ratekeeper/fastify';
import { RedisStore } from '@ratekeeper/redis';
import fastifyRateLimit from '@fastify/rate-limit';
import express from 'express';
import { rateLimit as expressRateLimit } from 'express-rate-limit';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import request from 'supertest';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const T0 = 1_700_000_007_300;
const WINDOW_MS = 10_000;
const LIMIT = 3;

interface Hit {
  /** Milliseconds after T0. */
  readonly at: number;
  readonly client: string;
}

/** The hand-written schedule: first requests mid-window, a denial's Retry-After, the window's last millisecond and its end. */
const HAND: readonly Hit[] = [
  { at: 0, client: 'a' },
  { at: 100, client: 'a' },
  { at: 2500, client: 'b' },
  { at: 4000, client: 'a' },
  { at: 4000, client: 'a' },
  { at: 6999, client: 'a' },
  { at: 9999, client: 'a' },
  { at: 10_000, client: 'a' },
  { at: 10_000, client: 'b' },
  { at: 12_499, client: 'b' },
  { at: 12_500, client: 'b' },
  { at: 12_500, client: 'a' },
  { at: 19_999, client: 'a' },
  { at: 20_000, client: 'a' },
  { at: 45_000, client: 'b' },
];

/** A longer schedule from a fixed seed: bursts, gaps of a few ms to two windows, three clients. */
function seeded(length: number, seed: number): Hit[] {
  let x = seed;
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x % n;
  };
  const hits: Hit[] = [];
  let at = 0;
  for (let i = 0; i < length; i++) {
    const gap = [0, 0, 1, next(400), next(4000), next(WINDOW_MS), next(2 * WINDOW_MS)][next(7)] as number;
    at += gap;
    hits.push({ at, client: ['a', 'b', 'c'][next(3)] as string });
  }
  return hits;
}

const SCHEDULES: readonly (readonly [string, readonly Hit[]])[] = [
  ['the hand-written schedule', HAND],
  ['a seeded schedule of 80 requests', seeded(80, 7)],
  ['another seeded schedule of 80 requests', seeded(80, 2026)],
];

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly remaining: string | undefined;
}

/** at moves both clocks to T0 + ms. */
function at(clock: ManualClock, ms: number): void {
  vi.setSystemTime(T0 + ms);
  clock.set(T0 + ms);
}

beforeEach(() => {
  // Only Date: the peers' cleanup timers (unref'd) stay real and never fire during a test.
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function expressApp(middleware: express.RequestHandler): express.Express {
  const app = express();
  app.use(middleware);
  app.get('/', (_req, res) => {
    res.send('ok');
  });
  return app;
}

async function runExpress(app: express.Express, clock: ManualClock, schedule: readonly Hit[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const hit of schedule) {
    at(clock, hit.at);
    const res = await request(app).get('/').set('X-Client', hit.client);
    answers.push({ status: res.status, retryAfter: res.headers['retry-after'], remaining: res.headers['x-ratelimit-remaining'] });
  }
  return answers;
}

async function runFastify(app: ReturnType<typeof Fastify>, clock: ManualClock, schedule: readonly Hit[]): Promise<Answer[]> {
  app.get('/', async () => 'ok');
  await app.ready();
  const answers: Answer[] = [];
  for (const hit of schedule) {
    at(clock, hit.at);
    const res = await app.inject({ url: '/', headers: { 'x-client': hit.client } });
    const header = (name: string) => (res.headers[name] === undefined ? undefined : String(res.headers[name]));
    answers.push({ status: res.statusCode, retryAfter: header('retry-after'), remaining: header('x-ratelimit-remaining') });
  }
  await app.close();
  return answers;
}

const client = (req: { headers: Record<string, string | string[] | undefined> }) => String(req.headers['x-client']);

describe('side by side with the peers: status, Retry-After and remaining, request by request', () => {
  const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
  afterAll(() => redis.disconnect());

  // The comparison is not vacuous: the epoch-aligned window, asked for by name, answers otherwise.
  it("tells 'fixed-window' (aligned on the clock) apart from express-rate-limit and RateLimiterMemory", async () => {
    const clock = new ManualClock(T0);
    const peer = expressApp(expressRateLimit({ windowMs: WINDOW_MS, limit: LIMIT, standardHeaders: false, legacyHeaders: true, keyGenerator: client }));
    const aligned = expressApp(ratekeeperExpress({ algorithm: 'fixed-window', windowMs: WINDOW_MS, limit: LIMIT, clock, key: client, headers: 'legacy' }));
    const want = await runExpress(peer, clock, HAND);
    const got = await runExpress(aligned, clock, HAND);
    // Client a's fourth request, 4 s after its first: the peer's window has 6 s left; the aligned one
    // ended 2.7 s after the first request and admits it in the next.
    expect(want[4]).toEqual({ status: 429, retryAfter: '6', remaining: '0' });
    expect(got[4]).toEqual({ status: 200, retryAfter: undefined, remaining: '1' });
    const rlf = new RateLimiterMemory({ points: LIMIT, duration: WINDOW_MS / 1000 });
    at(clock, 0);
    expect((await rlf.consume('k')).msBeforeNext).toBe(WINDOW_MS);
    expect(new FixedWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, clock }).consume('k').resetAfterMs).toBe(2700);
  });

  for (const [title, schedule] of SCHEDULES) {
    it(`express-rate-limit and @ratekeeper/express, { windowMs, limit }: ${title}`, async () => {
      const clock = new ManualClock(T0);
      const peer = expressApp(expressRateLimit({ windowMs: WINDOW_MS, limit: LIMIT, standardHeaders: false, legacyHeaders: true, keyGenerator: client }));
      const ours = expressApp(ratekeeperExpress({ windowMs: WINDOW_MS, limit: LIMIT, clock, key: client, headers: 'legacy' }));
      const want = await runExpress(peer, clock, schedule);
      const got = await runExpress(ours, clock, schedule);
      expect(want.filter((a) => a.status === 429).length, 'the schedule reaches the limit').toBeGreaterThan(2);
      expect(got).toEqual(want);
    });

    it(`express-rate-limit and @ratekeeper/express on a RedisStore (client time): ${title}`, async () => {
      const clock = new ManualClock(T0);
      const store = new RedisStore({ client: redis, time: 'client', prefix: `side-by-side:${Date.now()}:${Math.random()}:` });
      const peer = expressApp(expressRateLimit({ windowMs: WINDOW_MS, limit: LIMIT, standardHeaders: false, legacyHeaders: true, keyGenerator: client }));
      const ours = expressApp(ratekeeperExpress({ windowMs: WINDOW_MS, limit: LIMIT, clock, store, key: client, headers: 'legacy' }));
      const want = await runExpress(peer, clock, schedule);
      const got = await runExpress(ours, clock, schedule);
      expect(got).toEqual(want);
    });

    it(`@fastify/rate-limit and @ratekeeper/fastify, { max, timeWindow } as { limit, windowMs }: ${title}`, async () => {
      const clock = new ManualClock(T0);
      const peer = Fastify();
      await peer.register(fastifyRateLimit, { max: LIMIT, timeWindow: WINDOW_MS, keyGenerator: client });
      const ours = Fastify();
      await ours.register(ratekeeperFastify, { windowMs: WINDOW_MS, limit: LIMIT, clock, key: client, headers: 'legacy' });
      const want = await runFastify(peer, clock, schedule);
      const got = await runFastify(ours, clock, schedule);
      expect(got).toEqual(want);
    });

    it(`rate-limiter-flexible's RateLimiterMemory and FirstRequestWindowLimiter: ${title}`, async () => {
      const clock = new ManualClock(T0);
      const peer = new RateLimiterMemory({ points: LIMIT, duration: WINDOW_MS / 1000 });
      const ours = new FirstRequestWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, clock });
      const want: unknown[] = [];
      const got: unknown[] = [];
      for (const hit of schedule) {
        at(clock, hit.at);
        const res: RateLimiterRes = await peer.consume(hit.client).catch((r: unknown) => {
          if (r instanceof RateLimiterRes) return Object.assign(r, { denied: true });
          throw r;
        });
        const denied = (res as { denied?: boolean }).denied === true;
        want.push({ allowed: !denied, ms: res.msBeforeNext, remaining: res.remainingPoints });
        const d = ours.consume(hit.client);
        got.push({ allowed: d.allowed, ms: d.allowed ? d.resetAfterMs : d.retryAfterMs, remaining: d.remaining });
      }
      expect(got).toEqual(want);
    });
  }
});
