/**
 * The test Worker, bundled by esbuild as wrangler would and run in workerd by Miniflare (harness.ts),
 * as several Worker services (one isolate each) bound to one RateLimiterObject namespace.
 *
 * POST /scenario { prefix, store: { kind, options }, start, scenario } builds a store and the
 * scenario's limiter in this invocation (as a Worker does at module scope or per request), runs the
 * steps and answers { results, failures, batching }. `kind` picks the real store or a mutant
 * (test/mutants/). With `listen: false` no 'failure' listener is attached: the store's one-time
 * warnings (forgotten first) are caught from console.warn and answered as `warnings`, with whether the
 * Worker has `process.emitWarning` at all. POST /raw { name, batch, namespace } calls an object's run directly (the deadline test).
 *
 * Besides the real object the module exports the objects the fault tests need: one that never
 * answers (StallingObject), one that throws (ThrowingObject), and the mutant objects.
 */
import { ManualClock, type Store, systemClock } from '@ratekeeper/core';
import { forgetFailureWarnings } from '@ratekeeper/core/store';
import { DurableObject } from 'cloudflare:workers';
import { type Batch, DurableObjectStore, type DurableObjectStoreOptions, type FailureInfo, type LimiterNamespace, RateLimiterObject } from '../../src/index.js';
import { DeadlineDeafObject } from '../mutants/deadline-deaf-object.js';
import { ForgetfulObject } from '../mutants/forgetful-object.js';
import { isolateMemoryNamespace } from '../mutants/isolate-memory.js';
import { splitKeyNamespace } from '../mutants/split-key.js';
import { type Scenario, limiterOf, runScenario } from './scenario.js';

export { DeadlineDeafObject, ForgetfulObject, RateLimiterObject };

/** StallingObject never answers: its run waits a minute (a hung object, as the caller sees it). */
export class StallingObject extends DurableObject {
  async run(): Promise<never> {
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    throw new Error('stalled');
  }
}

/** ThrowingObject fails every call with an error whose text must never reach a client. */
export class ThrowingObject extends DurableObject {
  run(): never {
    throw new Error('SECRET internal detail');
  }
}

type Env = Record<string, LimiterNamespace>;

export type StoreKind = 'durable' | 'isolate-memory' | 'split-key';

export interface ScenarioRequest {
  readonly prefix: string;
  readonly store: { readonly kind: StoreKind; readonly namespace?: string; readonly options?: Omit<DurableObjectStoreOptions, 'namespace'> };
  /** The ManualClock's start when time is the client's (else the system clock). */
  readonly start?: number;
  readonly scenario: Scenario;
  /** false: no 'failure' listener; the warnings console.warn prints are answered instead. */
  readonly listen?: false;
}

function storeOf(request: ScenarioRequest, env: Env): DurableObjectStore {
  const real = env[request.store.namespace ?? 'LIMITS'] as LimiterNamespace;
  const kind = request.store.kind;
  const namespace = kind === 'isolate-memory' ? isolateMemoryNamespace() : kind === 'split-key' ? splitKeyNamespace(real) : real;
  return new DurableObjectStore({ ...request.store.options, namespace, prefix: request.prefix });
}

async function scenario(request: ScenarioRequest, env: Env): Promise<Response> {
  const store = storeOf(request, env);
  const failures: Omit<FailureInfo, 'error'>[] = [];
  if (request.listen !== false) store.on('failure', ({ operation, policy, reason }) => failures.push({ operation, policy, reason }));
  const manual = request.start === undefined ? undefined : new ManualClock(request.start);
  const limiter = limiterOf(request.scenario, store as Store, manual ?? systemClock);
  if (request.listen !== false) {
    const results = await runScenario(request.scenario, limiter, (at) => manual?.set((request.start as number) + at));
    return Response.json({ results, failures, batching: store.batching });
  }
  forgetFailureWarnings();
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
  try {
    const results = await runScenario(request.scenario, limiter, (at) => manual?.set((request.start as number) + at));
    const hasProcess = typeof (globalThis as { process?: { emitWarning?: unknown } }).process?.emitWarning === 'function';
    return Response.json({ results, failures, batching: store.batching, warnings, hasProcess });
  } finally {
    console.warn = warn;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    try {
      if (url.pathname === '/scenario') return await scenario((await request.json()) as ScenarioRequest, env);
      if (url.pathname === '/raw') {
        const { name, batch, namespace = 'LIMITS' } = (await request.json()) as { name: string; batch: Batch; namespace?: string };
        const ns = env[namespace] as LimiterNamespace;
        return Response.json({ reply: await ns.get(ns.idFromName(name) as never).run(batch) });
      }
      return new Response('Not Found', { status: 404 });
    } catch (error) {
      return Response.json({ thrown: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }, { status: 500 });
    }
  },
};
