/**
 * Next.js for real: `next dev` (Turbopack) serving the App Router route handler
 * servers/next/app/[...path]/route.js, started once for this file and warmed up (the route compiles on
 * its first request). Next has no client-address API; the route reads x-real-ip, which the test sends
 * on every request as the proxy in front of Next would. next.test.ts runs the same route behind a
 * bare Node bridge.
 */
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe } from 'vitest';
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
});
