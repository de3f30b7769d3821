/**
 * The Bun, Deno, Workers and Next.js snippets of the root README and of @ratekeeper/fetch's README, run
 * as written on their runtimes: each ```js block whose first line is `// <file>.mjs` is written to
 * .readme/<document>/ (inside this package, so its imports resolve from node_modules) and served:
 * bun.mjs and bun-run.mjs by `bun`, deno.mjs by `deno serve`, worker.mjs on workerd (esbuild +
 * Miniflare), route.mjs as a Next.js route handler given a NextRequest. Each must admit the documented
 * burst of 60 from one client, then answer 429. A snippet that goes missing from a README fails here.
 * @ratekeeper/durable-object's README block, a Worker whose limit lives in a Durable Object, runs on
 * workerd with its binding and must admit its burst of 100, then 429. (The Hono quick start and
 * fetch's Node block are whole Node programs: they run in packages/readme, and the Hono one, packed,
 * in ./packed.test.ts.)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { build } from 'esbuild';
import { NextRequest } from 'next/server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bunBinary, denoBinary, inCI, start } from './launch.js';

const dir = fileURLToPath(new URL('../.readme/', import.meta.url));
/** The documents whose runtime snippets run here, and the snippets each must have. */
const DOCUMENTS = {
  root: { path: 'README.md', files: ['bun.mjs', 'deno.mjs', 'route.mjs', 'worker.mjs'] },
  fetch: { path: 'packages/fetch/README.md', files: ['bun-run.mjs', 'bun.mjs', 'deno.mjs', 'route.mjs', 'worker.mjs'] },
} as const;
const snippetsOf = (path: string) => {
  const text = readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');
  return new Map([...text.matchAll(/```js\n\/\/ ([\w-]+\.mjs)[^\n]*\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[0].slice(6, -3)]));
};
const stops: (() => Promise<unknown>)[] = [];

beforeAll(() => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, { path }] of Object.entries(DOCUMENTS)) {
    mkdirSync(join(dir, name));
    for (const [file, code] of snippetsOf(path)) writeFileSync(join(dir, name, file), code);
  }
  mkdirSync(join(dir, 'durable-object'));
  const objects = snippetsOf('packages/durable-object/README.md');
  for (const [file, code] of objects) writeFileSync(join(dir, 'durable-object', file), code);
});
afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
  rmSync(dir, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** until polls `url` for at most 60 s (Bun's banner may come before it accepts); the answer spends one token. */
async function until(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

/**
 * burst sends GETs until the first 429 (at most 70): after `spent` earlier requests, the rest of the
 * first 60 must pass, and the policy must be the documented one.
 */
async function burst(url: string, spent = 0): Promise<void> {
  const statuses: number[] = [];
  let policy: string | null = null;
  for (let i = 0; i < 70 && !statuses.includes(429); i++) {
    const res = await fetch(url);
    policy ??= res.headers.get('ratelimit-policy');
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  expect(statuses.slice(0, 60 - spent)).toEqual(new Array(60 - spent).fill(200));
  expect(statuses.at(-1)).toBe(429);
  expect(policy).toBe('"tb-60-1";q=60;w=60');
}

const node = async (fetchHandler: (request: Request, env: { incoming: IncomingMessage }) => Promise<Response> | Response) => {
  const server = (createAdaptorServer({ fetch: fetchHandler as never }) as Server).listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  stops.push(() => new Promise((done) => server.close(done)));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
};

const bun = bunBinary();
const deno = denoBinary();
const missing = (name: string, binary: string | undefined) =>
  binary === undefined && !inCI && (console.warn(`\n*** ${name} not found: its README snippet is SKIPPED; CI fails instead. ***\n`), true);

for (const [name, { path, files }] of Object.entries(DOCUMENTS)) {
  describe(`the runtime snippets of ${path}`, () => {
    const here = join(dir, name);
    it('are all there', () => {
      expect([...snippetsOf(path).keys()].sort()).toEqual([...files]);
    });

    for (const file of files.filter((f) => f.startsWith('bun'))) {
      it.skipIf(missing('Bun', bun))(`${file}: Bun serving the default export`, async () => {
        const port = await freePort();
        const child = start(bun!, [file], { PORT: String(port) }, here, /Started|localhost:\d+/);
        stops.push(async () => (await child).stop());
        await child;
        await until(`http://127.0.0.1:${port}/`);
        await burst(`http://127.0.0.1:${port}/`, 1);
      });
    }

    it.skipIf(missing('Deno', deno))('deno.mjs: deno serve', async () => {
      const port = await freePort();
      const child = start(deno!, ['serve', '--host', '127.0.0.1', '--port', String(port), '--allow-env', '--allow-read', '--allow-sys', 'deno.mjs'], {}, here, /Listening/);
      stops.push(async () => (await child).stop());
      await child;
      await burst(`http://127.0.0.1:${port}/`);
    });

    it('worker.mjs: a Worker on workerd', async () => {
      const { Miniflare } = await import('miniflare');
      const bundle = await build({
        entryPoints: [join(here, 'worker.mjs')],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'browser',
        conditions: ['workerd', 'worker', 'browser', 'import'],
        logLevel: 'silent',
      });
      const mf = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: '2025-07-01', host: '127.0.0.1', port: 0 });
      stops.push(() => mf.dispose());
      await burst(String(await mf.ready));
    });

    it('route.mjs: a Next.js route handler given a NextRequest, behind a proxy that sets x-real-ip', async () => {
      const { GET } = (await import(join(here, 'route.mjs'))) as { GET: (request: Request) => Promise<Response> };
      const url = await node((request, env) => {
        const headers = new Headers(request.headers);
        headers.set('x-real-ip', env.incoming.socket.remoteAddress ?? '');
        return GET(new NextRequest(request.url, { headers }));
      });
      const first = await fetch(url);
      expect(await first.json()).toEqual({ hello: 'world' });
      await burst(url, 1);
    });
  });
}

describe('the Worker of packages/durable-object/README.md', () => {
  it('is there', () => {
    expect([...snippetsOf('packages/durable-object/README.md').keys()]).toEqual(['worker.mjs']);
  });

  it('worker.mjs: one limit in a Durable Object, on workerd with its LIMITS binding: 100, then 429', async () => {
    const { Miniflare } = await import('miniflare');
    const bundle = await build({
      entryPoints: [join(dir, 'durable-object', 'worker.mjs')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser', 'import'],
      // This package does not depend on @ratekeeper/durable-object; packages/readme has every ratekeeper package.
      nodePaths: [fileURLToPath(new URL('../../readme/node_modules/', import.meta.url))],
      external: ['cloudflare:workers'], // workerd's own module, where the object's base class comes from
      logLevel: 'silent',
    });
    const mf = new Miniflare({
      modules: true,
      script: bundle.outputFiles[0]!.text,
      compatibilityDate: '2025-07-01',
      durableObjects: { LIMITS: 'RateLimiterObject' },
      host: '127.0.0.1',
      port: 0,
    });
    stops.push(() => mf.dispose());
    const url = String(await mf.ready);
    const statuses: number[] = [];
    let policy: string | null = null;
    for (let i = 0; i < 150 && !statuses.includes(429); i++) {
      const res = await fetch(url);
      policy ??= res.headers.get('ratelimit-policy');
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    // A bucket of 100 refilled at 10 per second: at least the first 100 pass, then a 429.
    expect(statuses.slice(0, 100)).toEqual(new Array(100).fill(200));
    expect(statuses.at(-1)).toBe(429);
    expect(policy).toBe('"tb-100-10";q=100;w=10');
  });
});
