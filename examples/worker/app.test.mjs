// The shared example suite against the fetch app (on Node, on a ManualClock, in memory), then the
// Worker module bundled by esbuild (as wrangler does) on workerd through Miniflare, its limits in
// Durable Objects: the smoke checks, and one login limit per client across two isolates.
import { fileURLToPath } from 'node:url';
import { ManualClock } from '@ratekeeper/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleSuite } from '../example-suite.mjs';
import { inCI, onNode, smokeSuite } from '../runtime-example.mjs';
import { createApp } from './app.mjs';

const dir = fileURLToPath(new URL('.', import.meta.url));
const miniflare = await import('miniflare').catch((error) => {
  if (inCI) throw error;
  return undefined;
});

/** bundled is worker.mjs as wrangler bundles it: ESM, the workerd conditions, cloudflare:workers left to the runtime. */
async function bundled() {
  const { build } = await import('esbuild');
  const bundle = await build({
    entryPoints: [`${dir}worker.mjs`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    external: ['cloudflare:workers'],
    logLevel: 'silent',
  });
  return bundle.outputFiles[0].text;
}

exampleSuite('fetch (as on Workers)', { start: onNode(createApp), ManualClock, stacked: true });
smokeSuite('workerd (Miniflare)', miniflare !== undefined, async () => {
  const script = await bundled();
  const mf = new miniflare.Miniflare({ modules: true, script, compatibilityDate: '2025-07-01', durableObjects: { LIMITS: 'RateLimiterObject' }, host: '127.0.0.1', port: 0 });
  return { url: String(await mf.ready).replace(/\/$/, ''), close: () => mf.dispose() };
});

// Two Worker services of the same module are two isolates, as Cloudflare runs many: 24 logins from
// one address at once, half on each, admit exactly the login limit (5) between them. With the
// in-memory store each isolate would admit its own 5.
(miniflare !== undefined || inCI ? describe : describe.skip)('one limit per client across isolates (workerd)', () => {
  let mf;
  beforeAll(async () => {
    const script = await bundled();
    const worker = (name, LIMITS) => ({ name, modules: true, script, compatibilityDate: '2025-07-01', durableObjects: { LIMITS } });
    mf = new miniflare.Miniflare({ workers: [worker('a', 'RateLimiterObject'), worker('b', { className: 'RateLimiterObject', scriptName: 'a' })] });
    await mf.ready;
  }, 90_000);
  afterAll(async () => mf?.dispose());

  it('admits exactly 5 of 24 concurrent logins from one address spread over two isolates', async () => {
    const isolates = [await mf.getWorker('a'), await mf.getWorker('b')];
    const login = (i) => isolates[i % 2].fetch('http://example/login', { method: 'POST', headers: { 'CF-Connecting-IP': '203.0.113.7' } });
    const statuses = await Promise.all(Array.from({ length: 24 }, (_, i) => login(i).then(async (r) => (await r.arrayBuffer(), r.status))));
    expect([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length]).toEqual([5, 19]);
  });
});
