/**
 * The public surface: the exact export list, and the built package loading through its `exports` map
 * from CommonJS (require()) and ESM on the running Node, in child processes: the CommonJS script
 * serves one real call through tRPC's standalone (Node HTTP) adapter and reads its answer.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXPORTS = ['RateLimitedError', 'rateLimit', 'rateLimitErrorFormatter', 'retryAfterOf'];

const SERVE_ONE = `
  const { initTRPC } = require('@trpc/server');
  const { createHTTPServer } = require('@trpc/server/adapters/standalone');
  const { rateLimit, rateLimitErrorFormatter } = require('@ratekeeper/trpc');
  const t = initTRPC.context().create({ errorFormatter: rateLimitErrorFormatter });
  const router = t.router({ hello: t.procedure.use(rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60000 })).query(() => 'world') });
  const server = createHTTPServer({ router, createContext: ({ req, res }) => ({ req, res }) }).listen(0, '127.0.0.1', async () => {
    const res = await fetch('http://127.0.0.1:' + server.address().port + '/hello');
    console.log(JSON.stringify([Object.keys(require('@ratekeeper/trpc')).sort(), res.status, res.headers.get('ratelimit-policy')]));
    server.close();
  });`;

const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });

describe('@ratekeeper/trpc exports', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(EXPORTS);
  });

  it('has been built (the root `pnpm test` builds first)', () => {
    expect(existsSync(`${ROOT}dist/cjs/index.js`) && existsSync(`${ROOT}dist/esm/index.js`)).toBe(true);
  });

  it('is require()d from CommonJS and serves a call', () => {
    expect(JSON.parse(node(['-e', SERVE_ONE]))).toEqual([EXPORTS, 200, '"sw-5-60000";q=5;w=60']);
  });

  it('is import()ed from ESM with the same names, rateLimit a named middleware', () => {
    const out = node(['--input-type=module', '-e', "const m = await import('@ratekeeper/trpc'); console.log(JSON.stringify([...Object.keys(m).sort(), m.rateLimit().name]))"]);
    expect(JSON.parse(out)).toEqual([...EXPORTS, 'rateLimit']);
  });
});
