/**
 * Failures take Fastify's error path and never crash the server or leak: errors thrown by key, skip,
 * cost or onDecision reach the error handler (500), a limiter whose promise rejects surfaces as a
 * RateLimiterError without the store's text, a store failing 'closed' answers 503 with Retry-After,
 * and no key or message (CR, LF, NUL, non-ASCII) ever reaches a header.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { type FastifyRateLimitOptions, rateLimit } from '../src/index.js';
import { decidingWith, failing, later, printable, rateLimitHeaders } from './helpers.js';

interface Caught {
  readonly name: string;
  readonly message: string;
  readonly cause?: unknown;
}

async function appWith(options: FastifyRateLimitOptions, customErrorHandler = true) {
  const errors: Caught[] = [];
  const app: FastifyInstance = Fastify();
  if (customErrorHandler) {
    app.setErrorHandler((error, _req, reply) => {
      const e = error as Error;
      errors.push({ name: e.name, message: e.message, cause: e.cause });
      return reply.code(500).send({ failed: true });
    });
  }
  await app.register(rateLimit, options);
  app.get('/', async () => 'ok');
  app.get('/free', { config: { rateLimit: false } }, async () => 'free');
  return { app, errors };
}

const bucket = (capacity = 5) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, clock: new ManualClock(0) });

describe('errors from user functions', () => {
  const boom = () => {
    throw new Error('user function broke');
  };
  const cases: [string, FastifyRateLimitOptions][] = [
    ['key', { limiter: bucket(), key: boom }],
    ['skip', { limiter: bucket(), skip: boom }],
    ['cost', { limiter: bucket(), cost: boom }],
    ['onDecision', { limiter: bucket(), onDecision: boom }],
    ['onDecision on an asynchronous limiter', { limiter: later(bucket()), onDecision: boom }],
  ];

  it.each(cases)('%s: reaches the error handler and the server keeps serving', async (_, options) => {
    const { app, errors } = await appWith(options);
    for (let i = 0; i < 3; i++) expect((await app.inject('/')).statusCode).toBe(500);
    expect(errors).toEqual([0, 1, 2].map(() => ({ name: 'Error', message: 'user function broke', cause: undefined })));
    expect((await app.inject('/free')).statusCode).toBe(200);
  });

  it('answers through Fastify’s default error handler too', async () => {
    const { app } = await appWith({ limiter: bucket(), key: () => undefined as never }, false);
    const res = await app.inject('/');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ statusCode: 500, message: 'rateLimit: key(req) must return a string, got undefined' });
  });

  it('turns an invalid cost into a 500, never a silent admit', async () => {
    for (const cost of [0, -1, 1.5, Number.NaN, '2']) {
      const { app, errors } = await appWith({ limiter: bucket(), cost: () => cost as number });
      expect((await app.inject('/')).statusCode).toBe(500);
      expect(errors[0]?.name).toMatch(/^(RangeError|TypeError)$/);
    }
  });
});

describe('a limiter whose decision cannot be written', () => {
  const malformed = (l: TokenBucketLimiter) => decidingWith(l, (d) => ({ ...d, parts: null as never }));

  it.each([
    ['synchronous', (l: TokenBucketLimiter) => malformed(l)],
    ['asynchronous', (l: TokenBucketLimiter) => later(malformed(l))],
  ])('goes to the error handler, never an unhandled rejection (%s)', async (_, make) => {
    const { app, errors } = await appWith({ limiter: make(bucket()) });
    expect((await app.inject('/')).statusCode).toBe(500);
    expect(errors.map((e) => [e.name, (e.cause as Error).message])).toEqual([['RateLimiterError', 'parts is null, not a non-empty array']]);
  });
});

describe('a limiter that rejects', () => {
  it('surfaces as a RateLimiterError whose text is not the store’s, with the cause kept for logs', async () => {
    const secret = new Error('ECONNREFUSED redis://admin:hunter2@10.0.0.5:6379');
    const { app, errors } = await appWith({ limiter: failing(bucket().policies, secret) });
    const res = await app.inject('/');
    expect(res.statusCode).toBe(500);
    expect(errors).toEqual([{ name: 'RateLimiterError', message: 'rateLimit: the limiter failed to decide', cause: secret }]);
  });

  it('leaks nothing through Fastify’s default error handler', async () => {
    const { app } = await appWith({ limiter: failing(bucket().policies, new Error('hunter2')) }, false);
    const res = await app.inject('/');
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('hunter2');
    expect(JSON.stringify(res.headers)).not.toContain('hunter2');
  });
});

describe("a store failing 'closed'", () => {
  const closed = (limiter: TokenBucketLimiter) => decidingWith(limiter, (d) => ({ ...d, allowed: false, failure: 'closed', retryAfterMs: 2500 }));

  it.each([
    ['synchronous', (l: TokenBucketLimiter) => closed(l)],
    ['asynchronous', (l: TokenBucketLimiter) => later(closed(l))],
  ])('answers 503 with Retry-After and the reduced-capacity problem (%s)', async (_, make) => {
    const { app } = await appWith({ limiter: make(bucket()) });
    const res = await app.inject('/');
    expect([res.statusCode, res.headers['retry-after'], res.headers['content-type']]).toEqual([503, '3', 'application/problem+json']);
    expect(res.json()).toEqual({
      type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
      title: 'Service temporarily unable to apply its rate limits',
      status: 503,
    });
  });

  it('presets 503 for a custom handler', async () => {
    const { app } = await appWith({ limiter: closed(bucket()), handler: async () => ({ later: true }) });
    const res = await app.inject('/');
    expect([res.statusCode, res.json()]).toEqual([503, { later: true }]);
  });
});

describe('header hygiene', () => {
  const hostile = ['a\r\nSet-Cookie: pwned=1', 'nul\0byte', 'ünïcødé ключ 鍵', '\u2028line\u2029sep', 'del\x7f', 'two  spaces', 'x'.repeat(10_000)];

  it('never reflects a key into a header, never throws, and writes only printable ASCII', async () => {
    for (const key of hostile) {
      const { app, errors } = await appWith({ limiter: bucket(1), key: () => key });
      for (const expected of [200, 429]) {
        const res = await app.inject('/');
        expect(res.statusCode).toBe(expected);
        expect(printable(res.headers)).toBe(true);
        expect(res.headers['set-cookie']).toBeUndefined();
        const written = JSON.stringify(rateLimitHeaders(res.headers));
        expect(written.includes(key)).toBe(false);
        expect(res.body.includes(key)).toBe(false);
      }
      expect(errors).toEqual([]);
    }
  });

  it('keeps an error message with CR/LF out of the headers', async () => {
    const { app } = await appWith(
      {
        limiter: bucket(),
        key: () => {
          throw new Error('bad\r\nSet-Cookie: pwned=1');
        },
      },
      false,
    );
    const res = await app.inject('/');
    expect(res.statusCode).toBe(500);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(printable(res.headers)).toBe(true);
  });
});
