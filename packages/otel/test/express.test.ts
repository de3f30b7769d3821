/**
 * otelTelemetry through a real Express server over real HTTP: every decision counted once under its
 * outcome (exact counts), the store duration recorded only for a limiter that answers with a promise,
 * the decision's attributes on the request's active span, and a broken meter never costing a response.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Decision, ManualClock, type RateLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/express';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otelTelemetry } from '../src/index.js';
import { count, meterProvider } from './support.js';

const bucket = (name: string) => new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock: new ManualClock(0), name });

/** An async limiter over a memory one, as a remote store answers; `mark` sets a failure mark. */
function remote(inner: RateLimiter<'sync'>, mark?: Decision['failure']): RateLimiter<'async'> {
  const wrap = (d: Decision): Decision => (mark === undefined ? d : { ...d, failure: mark });
  return {
    mode: 'async',
    policies: inner.policies,
    consume: async (key, cost) => wrap(inner.consume(key, cost)),
    peek: async (key, cost) => wrap(inner.peek(key, cost)),
    allow: async (key, cost) => inner.allow(key, cost),
    reset: async (key) => inner.reset(key),
  };
}

function app(options: Parameters<typeof rateLimit>[0]) {
  const server = express();
  server.set('trust proxy', false);
  server.use(rateLimit(options));
  server.get('/', (_req, res) => void res.send('ok'));
  return server;
}

describe('otelTelemetry on Express', () => {
  it('counts 3 allowed and 2 limited for 5 requests against a bucket of 3', async () => {
    const { provider, read } = meterProvider();
    const server = app({ limiter: bucket('api'), telemetry: otelTelemetry({ meterProvider: provider }) });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await request(server).get('/')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const rows = await read();
    expect([count(rows, 'allowed', 'api'), count(rows, 'limited', 'api')]).toEqual([3, 2]);
    expect(rows.find((r) => r.name === 'ratekeeper.store.duration')?.points ?? []).toEqual([]);
  });

  it('counts shadow-mode denials as shadow_limited and lets them through', async () => {
    const { provider, read } = meterProvider();
    const server = app({ limiter: bucket('api'), shadow: true, telemetry: otelTelemetry({ meterProvider: provider }) });
    for (let i = 0; i < 5; i++) expect((await request(server).get('/')).status).toBe(200);
    const rows = await read();
    expect([count(rows, 'allowed'), count(rows, 'shadow_limited'), count(rows, 'limited')]).toEqual([3, 2, 0]);
  });

  it.each([
    ['fallback', 'fallback_allowed', 'fallback_limited'],
    ['open', 'failure_open', 'failure_open'],
    ['closed', 'failure_closed', 'failure_closed'],
  ] as const)('names a %s store failure and records the store duration of each async decision', async (mark, first, last) => {
    const { provider, read } = meterProvider();
    const server = app({ limiter: remote(bucket('api'), mark), telemetry: otelTelemetry({ meterProvider: provider }) });
    for (let i = 0; i < 4; i++) await request(server).get('/');
    const rows = await read();
    expect(count(rows, first) + (first === last ? 0 : count(rows, last))).toBe(4);
    if (first !== last) expect([count(rows, first), count(rows, last)]).toEqual([3, 1]);
    const histogram = rows.find((r) => r.name === 'ratekeeper.store.duration');
    expect(histogram?.points.reduce((n, p) => n + (p.value as { count: number }).count, 0)).toBe(4);
  });

  it('answers every request when the meter throws', async () => {
    const broken = {
      getMeter: () => ({
        createObservableCounter: () => ({ addCallback: () => {} }),
        createHistogram: () => ({
          record: () => {
            throw new Error('meter broke');
          },
        }),
      }),
    };
    const server = app({ limiter: remote(bucket('api')), telemetry: otelTelemetry({ meterProvider: broken as never }) });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(server).get('/')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  describe('span attributes', () => {
    const exporter = new InMemorySpanExporter();
    const manager = new AsyncLocalStorageContextManager();
    beforeAll(() => {
      manager.enable();
      context.setGlobalContextManager(manager);
    });
    afterAll(() => {
      context.disable();
    });

    it('puts the decision on the request span', async () => {
      const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
      const server = express();
      // What an HTTP instrumentation does: a span per request, active while the middleware runs.
      server.use((req, res, next) => {
        const span = tracer.startSpan(`GET ${req.path}`);
        res.on('finish', () => span.end());
        context.with(trace.setSpan(context.active(), span), next);
      });
      server.use(rateLimit({ limiter: bucket('api'), telemetry: otelTelemetry({ meterProvider: meterProvider().provider }) }));
      server.get('/', (_req, res) => void res.send('ok'));
      for (let i = 0; i < 4; i++) await request(server).get('/');
      const attributes = exporter.getFinishedSpans().map((s) => s.attributes);
      expect(attributes).toEqual([
        { 'ratekeeper.policy': 'api', 'ratekeeper.algorithm': 'token-bucket', 'ratekeeper.outcome': 'allowed', 'ratekeeper.remaining': 2, 'ratekeeper.retry_after_ms': 0 },
        { 'ratekeeper.policy': 'api', 'ratekeeper.algorithm': 'token-bucket', 'ratekeeper.outcome': 'allowed', 'ratekeeper.remaining': 1, 'ratekeeper.retry_after_ms': 0 },
        { 'ratekeeper.policy': 'api', 'ratekeeper.algorithm': 'token-bucket', 'ratekeeper.outcome': 'allowed', 'ratekeeper.remaining': 0, 'ratekeeper.retry_after_ms': 0 },
        { 'ratekeeper.policy': 'api', 'ratekeeper.algorithm': 'token-bucket', 'ratekeeper.outcome': 'limited', 'ratekeeper.remaining': 0, 'ratekeeper.retry_after_ms': 1000 },
      ]);
    });
  });
});
