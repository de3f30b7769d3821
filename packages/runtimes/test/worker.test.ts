/**
 * Cloudflare Workers: the Worker module (servers/worker.mjs), with @ratekeeper/fetch and Hono on
 * Workers, bundled by esbuild as wrangler would and run on workerd, Cloudflare's runtime, through
 * Miniflare, which serves it on a loopback port: one isolate for this file. The address is
 * CF-Connecting-IP, which Miniflare sets to the client's as Cloudflare's edge does; read with
 * ipFrom('cloudflare'), a client rotating made-up X-Forwarded-For values stays in one bucket (the
 * leftmost-hop mutant does not). workerd has no Buffer: this is also the proof that core answers
 * without one.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  // Miniflare sets CF-Connecting-IP to the client's address as Cloudflare's edge does, but, unlike the
  // edge, keeps a value the client sent itself: these requests send none (on Cloudflare, a client's
  // own CF-Connecting-IP is overwritten; packages/fetch/test/platforms.test.ts sends one).
  describe("the client address, ipFrom('cloudflare')", () => {
    const statuses = async (path: string) => {
      const got: number[] = [];
      for (let i = 0; i < 12; i++) got.push((await fetch(`${url}${path}`, { headers: { 'x-forwarded-for': `6.6.6.${i}` } })).status);
      return got;
    };
    const oneBucket = [200, 200, 200, ...Array.from({ length: 9 }, () => 429)];

    it.each(['f', 'h'])('counts a client rotating made-up X-Forwarded-For values in one bucket (%s)', async (flavor) => {
      expect(await statuses(`/${flavor}/cloudflare/1`)).toEqual(oneBucket);
    });

    it('the check catches a reader of the leftmost X-Forwarded-For hop (mutant)', async () => {
      expect(await statuses('/f/leftmost-hop/1')).not.toEqual(oneBucket);
    });
  });
});
