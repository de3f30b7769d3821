/**
 * workerd for the tests: the test Worker (worker.ts) bundled by esbuild as wrangler bundles (ESM,
 * the workerd/worker conditions, cloudflare:workers left to the runtime) and run by Miniflare (from
 * npm, with its workerd) as `isolates` Worker services, w0…w(n-1), each its own isolate, all bound to
 * the RateLimiterObject class hosted by a service of its own: LIMITS (the real object), STALLING,
 * THROWING (fault objects), FORGETFUL and DEAF (mutant objects). Requests go to one service by
 * name, so a test spreads its invocations over isolates as Cloudflare spreads traffic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import type { Batch, LimiterNamespace, Reply } from '../../src/index.js';
import type { ScenarioRequest } from './worker.js';
import type { StepResult } from './scenario.js';

const entry = fileURLToPath(new URL('./worker.ts', import.meta.url));
const CLASSES = { LIMITS: 'RateLimiterObject', STALLING: 'StallingObject', THROWING: 'ThrowingObject', FORGETFUL: 'ForgetfulObject', DEAF: 'DeadlineDeafObject' } as const;

export interface Answer {
  readonly results: StepResult[];
  readonly failures: { operation: string; policy: string; reason: string }[];
  readonly batching: { rpcs: number; calls: number };
  /** With `listen: false`: what console.warn printed, and whether the Worker has process.emitWarning. */
  readonly warnings?: string[];
  readonly hasProcess?: boolean;
}

export interface Workerd {
  readonly isolates: number;
  /** scenario runs one invocation on isolate `isolate` (w0, w1, …). */
  scenario(isolate: number, request: ScenarioRequest): Promise<Answer>;
  /** post sends a raw request to isolate 0. */
  post(path: string, body: unknown): Promise<Response>;
  /** restart restarts workerd, keeping what the objects stored (an eviction of every object at once). */
  restart(): Promise<void>;
  /** namespace is the binding of `className`'s namespace (a key of CLASSES) for a store in Node; it outlives restarts. */
  namespace(className: keyof typeof CLASSES): LimiterNamespace;
  dispose(): Promise<void>;
}

let bundled: string | undefined;

export async function bundle(): Promise<string> {
  if (bundled !== undefined) return bundled;
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    external: ['cloudflare:workers'],
    logLevel: 'silent',
  });
  bundled = (out.outputFiles[0] as { text: string }).text;
  return bundled;
}

export async function startWorkerd(isolates = 4): Promise<Workerd> {
  const script = await bundle();
  const persist = mkdtempSync(join(tmpdir(), 'rk-do-'));
  const bindings = Object.fromEntries(Object.entries(CLASSES).map(([name, className]) => [name, { className, scriptName: 'objects' }]));
  const options = {
    compatibilityDate: '2025-07-01',
    durableObjectsPersist: persist,
    workers: [
      { name: 'objects', modules: true, script, compatibilityDate: '2025-07-01', durableObjects: { ...CLASSES } },
      ...Array.from({ length: isolates }, (_, i) => ({ name: `w${i}`, modules: true, script, compatibilityDate: '2025-07-01', durableObjects: bindings })),
    ],
  };
  const mf = new Miniflare(options);
  await mf.ready;
  const fetchOn = async (isolate: number, path: string, body: unknown) => {
    const worker = (await mf.getWorker(`w${isolate}`)) as unknown as { fetch(url: string, init: RequestInit): Promise<unknown> };
    return (await worker.fetch(`http://w${isolate}${path}`, { method: 'POST', body: JSON.stringify(body) })) as unknown as Response;
  };
  return {
    isolates,
    async scenario(isolate, request) {
      const response = await fetchOn(isolate, '/scenario', request);
      const body = (await response.json()) as Answer & { thrown?: string };
      if (body.thrown !== undefined) throw new Error(`the Worker threw: ${body.thrown}`);
      return body;
    },
    post: (path, body) => fetchOn(0, path, body),
    async restart() {
      await mf.setOptions(options);
    },
    namespace(className) {
      // Each call finds the binding anew: after a restart, the one a store held before is gone.
      const run = async (name: string, batch: Batch): Promise<Reply> => {
        const binding = (await mf.getDurableObjectNamespace(className, 'objects')) as unknown as LimiterNamespace;
        return binding.get(binding.idFromName(name) as never).run(batch);
      };
      return { idFromName: (name) => name, get: ((name: string) => ({ run: (batch: Batch) => run(name, batch) })) as LimiterNamespace['get'] };
    },
    async dispose() {
      await mf.dispose();
      rmSync(persist, { recursive: true, force: true });
    },
  };
}
