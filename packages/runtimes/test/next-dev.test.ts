/**
 * Next.js for real: `next dev` (Turbopack) serving the App Router route handler
 * servers/next/app/[...path]/route.js, started once for this file and warmed up (the route compiles on
 * its first request). Next has no client-address API; the route reads x-real-ip, which the test sends
 * on every request as the proxy in front of Next would. next.test.ts runs the same route behind a
 * bare Node bridge. servers/next/middleware.js puts the fetch adapter in Next's middleware too, for
 * CVE-2025-29927: the header `x-middleware-subrequest` must leave it, and the route handler's, counting.
 */
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Started, servers, start } from './launch.js';
import { runtimeSuite } from './suite.js';

const next = createRequire(import.meta.url).resolve('next/dist/bin/next');
let server: Started | undefined;
let url = '';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe('next dev', () => {
  beforeAll(async () => {
    const port = await freePort();
    server = await start(process.execPath, [next, 'dev', 'next', '-p', String(port), '-H', '127.0.0.1'], { NEXT_TELEMETRY_DISABLED: '1' }, servers, /Ready in/, true);
    url = `http://127.0.0.1:${port}`;
    const warm = await fetch(`${url}/__clock?advance=0`);
    if (warm.status !== 200) throw new Error(`next dev answered the warm-up with ${warm.status}: ${await warm.text()}`);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  runtimeSuite('next dev (App Router route handler)', () => url, ['f'], { headers: { 'x-real-ip': '127.0.0.1' }, outcomes: 'all' });

  // CVE-2025-29927: the header that made Next (before 15.2.3) skip every middleware, in the spellings
  // the advisory and its write-ups used, one per request in turn.
  describe('x-middleware-subrequest (CVE-2025-29927)', () => {
    const SPELLINGS = [
      'middleware',
      'middleware:middleware:middleware:middleware:middleware',
      'src/middleware:src/middleware:src/middleware:src/middleware:src/middleware',
      'pages/_middleware',
      'proxy:proxy:proxy:proxy:proxy',
    ];
    const answers = async (path: string, headers: Record<string, string> = {}) => {
      const got: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${url}${path}`, { headers: { ...headers, 'x-middleware-subrequest': SPELLINGS[i % SPELLINGS.length] as string } });
        got.push(`${res.status} ${res.status === 200 ? await res.text() : (await res.body?.cancel(), '')}`.trim());
      }
      return got;
    };
    const limited = (ok: string) => [ok, ok, ok, ...Array.from({ length: 7 }, () => '429')];

    it('leaves the fetch adapter in middleware counting every request: 3 admitted, then 429, none around it', async () => {
      expect(await answers('/mw/a')).toEqual(limited('200 middleware'));
    });

    it('leaves the fetch adapter in a route handler counting every request', async () => {
      const got = await answers('/f/bucket/subrequest', { 'x-real-ip': '127.0.0.1' });
      expect(got.map((a) => a.slice(0, 3))).toEqual(limited('200'));
    });

    it('the check catches a limit that skips a request carrying the header (mutant)', async () => {
      expect(await answers('/mw-skip/a')).not.toEqual(limited('200 middleware'));
    });
  });
});
