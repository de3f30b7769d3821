/**
 * The public surface: the exact export list, and the built package loading through its `exports` map
 * from both module systems on the running Node (20 in CI), in a child process so that no test-runner
 * transform is involved. The CommonJS child serves one real request through Koa to prove the
 * require() graph (this package, @ratekeeper/core, koa) works end to end.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const EXPORTS = ['rateLimit'];

const SERVE_ONE = `
  const Koa = require('koa');
  const { rateLimit } = require('@ratekeeper/koa');
  const app = new Koa();
  app.use(rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60000 }));
  app.use((ctx) => { ctx.body = 'ok'; });
  const server = app.listen(0, '127.0.0.1', async () => {
    const res = await fetch('http://127.0.0.1:' + server.address().port + '/');
    console.log(JSON.stringify([Object.keys(require('@ratekeeper/koa')), res.status, res.headers.get('ratelimit-policy')]));
    server.close();
  });`;

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 20_000 });
}

describe('@ratekeeper/koa exports', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(EXPORTS);
  });

  it('has been built (the root `pnpm test` builds first)', () => {
    expect(existsSync(`${root}dist/cjs/index.js`) && existsSync(`${root}dist/esm/index.js`)).toBe(true);
  });

  it('is require()d from CommonJS and serves a request', () => {
    expect(JSON.parse(node(['-e', SERVE_ONE]))).toEqual([EXPORTS, 200, '"sw-5-60000";q=5;w=60']);
  });

  it('is import()ed from ESM with the same names', () => {
    const out = node(['--input-type=module', '-e', "const m = await import('@ratekeeper/koa'); console.log(JSON.stringify([...Object.keys(m).sort(), m.rateLimit().name]))"]);
    expect(JSON.parse(out)).toEqual([...EXPORTS, 'rateLimit']);
  });

  it('resolves the CommonJS and ESM entries to dist', () => {
    const out = node(['--input-type=module', '-e', "import { createRequire } from 'node:module'; console.log(JSON.stringify([createRequire(process.cwd() + '/').resolve('@ratekeeper/koa'), import.meta.resolve('@ratekeeper/koa')]))"]);
    const [cjs, esm] = JSON.parse(out) as [string, string];
    expect(cjs).toBe(`${root}dist/cjs/index.js`);
    expect(esm).toBe(`file://${root}dist/esm/index.js`);
  });
});
