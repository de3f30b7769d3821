/**
 * The public surface: the exact export list of the source, of the built ESM entry and of the built
 * CommonJS entry (packages/fastify/dist; the root `pnpm test` builds first), and a real Node process
 * that `require()`s the package and `import`s it by name and registers it both ways Fastify users do.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as source from '../src/index.js';

const EXPORTS = ['default', 'rateLimit', 'routeKey'];
const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('exports', () => {
  it('exports exactly rateLimit, also as the default export, and routeKey', () => {
    expect(Object.keys(source).sort()).toEqual(EXPORTS);
    expect(source.default).toBe(source.rateLimit);
  });

  it('exports the same names from the built ESM and CommonJS entries', async () => {
    const esm = (await import(new URL('../dist/esm/index.js', import.meta.url).href)) as Record<string, unknown>;
    const cjs = createRequire(import.meta.url)('../dist/cjs/index.js') as Record<string, unknown>;
    expect(Object.keys(esm).sort()).toEqual(EXPORTS);
    expect(
      Object.keys(cjs)
        .filter((k) => k !== '__esModule')
        .sort(),
    ).toEqual(EXPORTS);
    expect(esm['default']).toBe(esm['rateLimit']);
    expect(cjs['default']).toBe(cjs['rateLimit']);
  });

  it('loads by name in Node with require() and with import, and registers as a module or a function', () => {
    const script = (load: string) => `
      const Fastify = require('fastify');
      (async () => {
        const mod = ${load};
        const statuses = [];
        for (const plugin of [mod, mod.rateLimit, mod.default]) {
          const app = Fastify();
          await app.register(plugin, { capacity: 1, refillPerSecond: 0.001 });
          app.get('/', async () => 'ok');
          statuses.push((await app.inject('/')).statusCode, (await app.inject('/')).statusCode);
        }
        console.log(JSON.stringify({ keys: Object.keys(mod).filter((k) => k !== '__esModule').sort(), statuses }));
      })().catch((e) => { console.error(e); process.exit(1); });`;
    for (const load of [`require('@ratekeeper/fastify')`, `await import('@ratekeeper/fastify')`]) {
      const out = execFileSync(process.execPath, ['-e', script(load)], { cwd: packageDir, encoding: 'utf8', timeout: 20_000 });
      expect(JSON.parse(out)).toEqual({ keys: EXPORTS, statuses: [200, 429, 200, 429, 200, 429] });
    }
  });
});
