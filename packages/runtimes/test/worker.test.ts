/**
 * Cloudflare Workers: the Worker module (servers/worker.mjs), with @ratekeeper/fetch and Hono on
 * Workers, bundled by esbuild as wrangler would and run on workerd, Cloudflare's runtime, through
 * Miniflare, which serves it on a loopback port: one isolate for this file. The address is
 * CF-Connecting-IP, which Miniflare sets to the client's as Cloudflare's edge does. workerd has no
 * Buffer: this is also the proof that core answers without one.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe } from 'vitest';
import { available, inCI, servers } from './launch.js';
import { runtimeSuite } from './suite.js';

const { Miniflare } = await import('miniflare').catch((error: unknown) => {
  if (inCI) throw error;
  return { Miniflare: undefined };
});
let mf: InstanceType<NonNullable<typeof Miniflare>> | undefined;
let url = '';

(available('workerd (miniflare)', Miniflare === undefined ? undefined : 'miniflare') ? describe : describe.skip)('Workers', () => {
  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [join(servers, 'worker.mjs')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser', 'import'],
      logLevel: 'silent',
    });
    mf = new Miniflare!({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: '2025-07-01', host: '127.0.0.1', port: 0 });
    url = String(await mf.ready).replace(/\/$/, '');
  }, 90_000);
  afterAll(async () => {
    await mf?.dispose();
  });
  runtimeSuite('workerd (Miniflare)', () => url, ['f', 'h'], { outcomes: 'completed' });
});
