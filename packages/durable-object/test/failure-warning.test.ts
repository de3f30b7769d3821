/**
 * A DurableObjectStore whose objects cannot decide says so, with DEFAULT options: without a 'failure'
 * listener, its first failure of each cause warns once per isolate, naming the cause, what decides
 * meanwhile and how to silence it (`failureWarning: false`, the option every store with a failure
 * policy takes). In Node (a namespace whose stub fails each way the runtime fails an RPC) the warning
 * is a 'RatekeeperWarning' on process warnings; in workerd, where a Worker has no `process` without
 * nodejs_compat, the same text goes to console.warn, once for any number of failures. A store whose
 * objects answer never warns. The mutant 'silent-failures' (the store's warning call removed, today's
 * behaviour before this warning) stays silent and is caught.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import { forgetFailureWarnings } from '@ratekeeper/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableObjectStore } from '../src/durable-object-store.js';
import type { Batch, LimiterNamespace } from '../src/index.js';
import { type Workerd, startWorkerd } from './support/harness.js';
import { mutantBuild } from './support/mutant-builds.js';
import { rowsNamespace } from './support/rows-namespace.js';
import { warningsOnProcess } from '@ratekeeper/store-contract';

const { ours, settle } = warningsOnProcess(forgetFailureWarnings);

/** namespaceOf is a namespace whose every object's run is `run`. */
const namespaceOf = (run: (batch: Batch) => Promise<unknown>): LimiterNamespace => ({ idFromName: (name) => name, get: (() => ({ run })) as never });
const failing = (flags: object) => namespaceOf(() => Promise.reject(Object.assign(new Error('SECRET what the object was deciding'), flags)));
async function limiterOn(namespace: LimiterNamespace, build?: string, extra: object = {}) {
  // In Node the store's own module, not the entry (which also exports the object, for workerd only).
  const own = build === undefined ? undefined : build.replace(/index\.js$/, 'durable-object-store.js');
  const { DurableObjectStore: Store } = (own === undefined ? { DurableObjectStore } : await import(own)) as { DurableObjectStore: typeof DurableObjectStore };
  // A mutant of core's kit is built beside the mutant store: its limiter comes from that core, whose
  // steps are the ones the store accepts (the object runs core's own steps, by identity).
  const core = build === undefined ? undefined : new URL('../node_modules/@ratekeeper/core/dist/esm/index.js', build).href;
  const { TokenBucketLimiter: Limiter } = (core === undefined ? { TokenBucketLimiter } : await import(core)) as { TokenBucketLimiter: typeof TokenBucketLimiter };
  const store = new Store({ namespace, ...extra });
  return { store, limiter: new Limiter({ store, capacity: 2, refillPerSecond: 1, name: 'b' }) };
}
const failuresOf = async (limiter: TokenBucketLimiter<'async'>, n: number) => {
  const decisions = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.consume('k'));
  return decisions.map((d) => d.failure);
};

describe('the failure warning of a DurableObjectStore in Node, DEFAULT options', () => {
  it.each([
    [
      'an object that throws',
      { remote: true },
      'RATEKEEPER_DURABLE_OBJECT_REPLY',
      "the object threw, or answered what this store cannot read: is the namespace bound to your Worker's RateLimiterObject",
    ],
    ['an overloaded object', { overloaded: true }, 'RATEKEEPER_DURABLE_OBJECT_OVERLOADED', "the runtime refused the call: the key's object is overloaded"],
    ['a failed call', {}, 'RATEKEEPER_DURABLE_OBJECT_CONNECTION', 'the runtime failed the call'],
  ])('warns once for %s, naming the cause', async (_label, flags, code, text) => {
    const { limiter } = await limiterOn(failing(flags));
    expect(await failuresOf(limiter, 3)).toEqual(['fallback', 'fallback', 'fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual([code]);
    const [warning] = ours();
    expect(warning?.message).toContain('DurableObjectStore: the Durable Object could not decide');
    expect(warning?.message).toContain("onFailure: 'fallback'");
    expect(warning?.message).toContain(text);
    expect(warning?.message).toContain('failureWarning: false');
    expect(warning?.message).not.toContain('SECRET');
  });

  it('warns once for an object that answers nothing, naming timeoutMs', async () => {
    const { limiter } = await limiterOn(namespaceOf(() => new Promise(() => {})));
    expect(await failuresOf(limiter, 1)).toEqual(['fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_DURABLE_OBJECT_TIMEOUT']);
    expect(ours()[0]?.message).toContain("the key's object answered nothing for 1000 ms (timeoutMs)");
  });

  it('catches the mutant that decides in silence', async () => {
    const { limiter } = await limiterOn(failing({ remote: true }), mutantBuild('silent-failures'));
    expect(await failuresOf(limiter, 2)).toEqual(['fallback', 'fallback']);
    await settle();
    expect(ours()).toEqual([]);
  });

  it('says nothing for a store whose objects answer', async () => {
    const { limiter } = await limiterOn(rowsNamespace());
    expect(await failuresOf(limiter, 3)).toEqual([undefined, undefined, undefined]);
    await settle();
    expect(ours()).toEqual([]);
  });

  it("is silenced by a 'failure' listener, and by failureWarning: false", async () => {
    const listened = await limiterOn(failing({ remote: true }));
    const seen: string[] = [];
    listened.store.on('failure', (info) => void seen.push(info.reason));
    const off = await limiterOn(failing({ remote: true }), undefined, { failureWarning: false });
    expect(await failuresOf(listened.limiter, 1)).toEqual(['fallback']);
    expect(await failuresOf(off.limiter, 1)).toEqual(['fallback']);
    await settle();
    expect(seen).toEqual(['reply']);
    expect(ours()).toEqual([]);
  });

  it('refuses a failureWarning that is not a boolean, naming it', () => {
    expect(() => new DurableObjectStore({ namespace: rowsNamespace(), failureWarning: 'no' as never })).toThrowError(
      new TypeError('DurableObjectStore: failureWarning must be a boolean, got "no"'),
    );
  });
});

describe('the failure warning in workerd, where a Worker has no process', () => {
  let workerd: Workerd;
  beforeAll(async () => {
    workerd = await startWorkerd(1);
  });
  afterAll(async () => {
    await workerd?.dispose();
  });

  it('goes to console.warn, once for three failures of an object that throws', async () => {
    const answer = await workerd.scenario(0, {
      prefix: 'warn:',
      store: { kind: 'durable', namespace: 'THROWING' },
      listen: false,
      scenario: {
        limiters: [{ type: 'token-bucket', options: { capacity: 2, refillPerSecond: 0.001, name: 'b' } }],
        steps: [0, 1, 2].map(() => ({ do: 'consume', key: 'k' }) as const),
      },
    });
    expect(answer.results.map((r) => (r as unknown[])[4])).toEqual(['fallback', 'fallback', 'fallback']);
    expect(answer.hasProcess).toBe(false);
    expect(answer.warnings).toHaveLength(1);
    expect(answer.warnings?.[0]).toMatch(/^RatekeeperWarning \[RATEKEEPER_DURABLE_OBJECT_REPLY\]: DurableObjectStore: the Durable Object could not decide, /);
    expect(answer.warnings?.[0]).not.toContain('SECRET');
  });
});
