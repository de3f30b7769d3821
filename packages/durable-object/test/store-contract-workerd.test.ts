/**
 * The store contract suite on DurableObjectStore with default options, its objects in workerd: the
 * real RateLimiterObject class (bundled as wrangler bundles it: ./support/harness.ts) runs in
 * Miniflare's workerd with its storage, and the store calls it from Node through Miniflare's binding
 * of the namespace, each batch an RPC into the object. So the object's clock is workerd's, its state
 * is what it stored, and every clause of the contract holds across the RPC boundary. (The store runs
 * in Node here; ./store-contract.test.ts runs the same suite on the object's Engine in Node, and the
 * other files here run the store inside Workers. Concurrency leases are refused by this store, by name.)
 *
 * Miniflare's binding carries object names from Node to workerd as UTF-8, where a lone surrogate
 * becomes U+FFFD; the store names an object by its key's hex, so hostile keys cross it unescaped.
 *
 * The differential runs on a store with `time: 'client'` over the same binding (fewer histories than
 * on the Engine in Node: every batch is an RPC into workerd). The burst runs in Workers: 16
 * invocations spread over 4 isolates (./support/harness.ts), each firing 125 consumes at once on one
 * key, 2,000 in all, on stores of default options (the object's clock, batching on); its mutants
 * decide in each isolate's memory (4 × 500) and spread a hot key over objects (500 per shard):
 * test/mutants/isolate-memory.ts, split-key.ts.
 */
import { type Burst, type BurstMember, type BurstReport, storeContractSuite } from '@ratekeeper/store-contract';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll } from 'vitest';
import { DurableObjectStore } from '../src/durable-object-store.js';
import type { LimiterNamespace } from '../src/index.js';
import { type Workerd, bundle, startWorkerd } from './support/harness.js';
import type { Counted, LimiterSpec, Scenario, Step } from './support/scenario.js';
import type { StoreKind } from './support/worker.js';

let workerd: Workerd;
let made: Miniflare | undefined;

beforeAll(async () => {
  workerd = await startWorkerd(4);
}, 90_000);

afterAll(async () => {
  await workerd?.dispose();
  await made?.dispose();
});

/** namespaceOf starts workerd with the real object (once) and answers its binding. */
async function namespaceOf(): Promise<LimiterNamespace> {
  const script = await bundle();
  made ??= new Miniflare({
    compatibilityDate: '2025-07-01',
    workers: [{ name: 'objects', modules: true, script, compatibilityDate: '2025-07-01', durableObjects: { LIMITS: 'RateLimiterObject' } }],
  });
  await made.ready;
  return (await made.getDurableObjectNamespace('LIMITS', 'objects')) as unknown as LimiterNamespace;
}

/** limiterSpec: a burst member as the Worker's scenario builds it. */
function limiterSpec(m: BurstMember): LimiterSpec {
  const { algorithm, ...options } = m;
  return { type: algorithm, options };
}

/** burst fires every invocation at once, on isolates in turn, each its own store of default options; a worker's report is one invocation's. */
async function burst(b: Burst, mutant?: StoreKind): Promise<BurstReport[]> {
  const prefix = `${b.key}:`;
  const scenario = (steps: readonly Step[]): Scenario => ({ limiters: b.members.map(limiterSpec), composite: b.members.length > 1, steps });
  const store = { kind: mutant ?? ('durable' as const) };
  if (b.resetFirst) await workerd.scenario(0, { prefix, store, scenario: scenario([{ do: 'reset', key: 'hot' }]) });
  const invocations = Array.from({ length: b.workers }, (_, i) =>
    workerd.scenario(i % workerd.isolates, { prefix, store, scenario: scenario([{ do: 'consume', key: 'hot', times: b.requests }]) }),
  );
  return (await Promise.all(invocations)).map((answer) => {
    const counted = answer.results[0] as Counted;
    return { admitted: counted.allowed, failed: counted.failed, failures: answer.failures.map((f) => `${f.reason} (${f.operation})`) };
  });
}

storeContractSuite('DurableObjectStore (its objects in workerd)', async () => ({ store: new DurableObjectStore({ namespace: await namespaceOf() }) }), {
  capabilities: { concurrency: false },
  another: async () => new DurableObjectStore({ namespace: await namespaceOf() }),
  differential: { store: async () => new DurableObjectStore({ namespace: await namespaceOf(), time: 'client' }), batches: true, runs: 8 },
  burst: {
    run: burst,
    workers: 4 * 4,
    requests: 125,
    mutants: [
      ["deciding in each isolate's memory", 'isolate-memory'],
      ['a hot key spread over objects', 'split-key'],
    ],
  },
});
