/**
 * The public surface: the exact export list of the built package, loaded in workerd both as ESM and
 * through require() (bundled by esbuild as wrangler bundles; the package imports cloudflare:workers,
 * so it runs on Workers, not on Node); options and capabilities checked at construction (a
 * TypeError or RangeError naming the store, the option and the value; a ConcurrencyLimiter refused by
 * name); and batching: the calls one invocation makes to one object in one turn travel as one RPC.
 */
import { fileURLToPath } from 'node:url';
import { ConcurrencyLimiter, MemoryStore, TokenBucketLimiter } from '@ratekeeper/core';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableObjectStore } from '../src/durable-object-store.js';
import type { LimiterNamespace } from '../src/options.js';
import { type Workerd, startWorkerd } from './support/harness.js';

const EXPORTS = ['CLOSED_RETRY_AFTER_MS', 'DEFAULT_MAX_BATCH', 'DEFAULT_PREFIX', 'DEFAULT_TIMEOUT_MS', 'DurableObjectBinding', 'DurableObjectStore', 'RateLimiterObject'];

/** loadedNames bundles `source` (which must set `names`) against the built package and answers what workerd saw. */
async function loadedNames(source: string): Promise<string[]> {
  const out = await build({
    stdin: { contents: `${source}\nexport default { fetch: () => Response.json(names) };`, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['cloudflare:workers'],
    logLevel: 'silent',
  });
  const mf = new Miniflare({ modules: true, script: (out.outputFiles[0] as { text: string }).text, compatibilityDate: '2025-07-01' });
  try {
    return (await (await mf.dispatchFetch('http://x/')).json()) as string[];
  } finally {
    await mf.dispose();
  }
}

describe('the package', () => {
  it('exports exactly its documented names, with import in workerd', async () => {
    expect(await loadedNames("import * as api from '@ratekeeper/durable-object'; const names = Object.keys(api).sort();")).toEqual(EXPORTS);
  });

  it('loads through require() too (the workerd condition: its ES module, which a bundler wraps)', async () => {
    expect(await loadedNames("const api = require('@ratekeeper/durable-object'); const names = Object.keys(api).filter((n) => n !== '__esModule').sort();")).toEqual(EXPORTS);
  });
});

const namespace: LimiterNamespace = { idFromName: () => ({}), get: () => ({ run: () => Promise.resolve([]) }) };

describe('construction', () => {
  const cases: [string, unknown, ErrorConstructor, string][] = [
    ['no options', undefined, TypeError, 'DurableObjectStore: options must be an object with a namespace, got undefined'],
    ['no namespace', {}, TypeError, 'DurableObjectStore: namespace must be a Durable Object namespace binding'],
    ['a typo', { namespace, timeoutMS: 5 }, TypeError, 'DurableObjectStore: unknown option "timeoutMS"'],
    ['timeoutMs 0', { namespace, timeoutMs: 0 }, RangeError, 'DurableObjectStore: timeoutMs must be an integer from 1 to 60000, got 0'],
    ['timeoutMs NaN', { namespace, timeoutMs: Number.NaN }, RangeError, 'DurableObjectStore: timeoutMs must be an integer from 1 to 60000, got NaN'],
    ['onFailure', { namespace, onFailure: 'allow' }, TypeError, "DurableObjectStore: onFailure must be one of 'fallback', 'open', 'closed', got \"allow\""],
    ['time', { namespace, time: 'server' }, TypeError, "DurableObjectStore: time must be one of 'object', 'client', got \"server\""],
    ['batch', { namespace, batch: 'yes' }, TypeError, 'DurableObjectStore: batch must be a boolean, got "yes"'],
    ['maxBatchSize', { namespace, maxBatchSize: 1 }, RangeError, 'DurableObjectStore: maxBatchSize must be an integer from 2 to 1000, got 1'],
    ['prefix', { namespace, prefix: 7 }, RangeError, 'DurableObjectStore: prefix must be a string of at most 64 characters, got 7'],
    ['fallbackStore', { namespace, fallbackStore: {} }, TypeError, 'DurableObjectStore: fallbackStore must be a synchronous store with consumeAll'],
  ];
  for (const [name, options, type, message] of cases) {
    it(`refuses ${name}`, () => {
      expect(() => new DurableObjectStore(options as never)).toThrow(type);
      expect(() => new DurableObjectStore(options as never)).toThrow(message);
    });
  }

  it('never mutates the options it is given', () => {
    const options = Object.freeze({ namespace, timeoutMs: 50, fallbackStore: new MemoryStore() });
    expect(new DurableObjectStore(options).timeoutMs).toBe(50);
  });

  it('refuses a ConcurrencyLimiter at construction, by name: no lease expiry survives an isolate that dies', () => {
    const store = new DurableObjectStore({ namespace });
    expect(() => new ConcurrencyLimiter({ limit: 3, store })).toThrow(/^DurableObjectStore: concurrency leases are not supported/);
  });

  it('refuses a policy name bound twice with other parameters', () => {
    const store = new DurableObjectStore({ namespace });
    new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, name: 'api', store });
    expect(() => new TokenBucketLimiter({ capacity: 4, refillPerSecond: 1, name: 'api', store })).toThrow(/policy name "api" is already bound with other parameters/);
  });
});

describe('batching, in workerd', () => {
  let workerd: Workerd;
  beforeAll(async () => {
    workerd = await startWorkerd(1);
  });
  afterAll(async () => {
    await workerd?.dispose();
  });
  const limiters = [{ type: 'token-bucket', options: { capacity: 100, refillPerSecond: 1 } }] as const;
  const burst = { limiters, steps: [{ do: 'consume', key: 'k', times: 10 }] } as const;

  it('sends the calls an invocation makes to one object in one turn as one RPC', async () => {
    expect((await workerd.scenario(0, { prefix: 'batch1:', store: { kind: 'durable' }, scenario: burst })).batching).toEqual({ rpcs: 1, calls: 10 });
  });

  it('splits a turn’s calls at maxBatchSize, and sends each alone with batch: false', async () => {
    expect((await workerd.scenario(0, { prefix: 'batch2:', store: { kind: 'durable', options: { maxBatchSize: 4 } }, scenario: burst })).batching).toEqual({ rpcs: 3, calls: 10 });
    expect((await workerd.scenario(0, { prefix: 'batch3:', store: { kind: 'durable', options: { batch: false } }, scenario: burst })).batching).toEqual({ rpcs: 10, calls: 10 });
  });
});
