/**
 * The public surface of an adapter package: the exact export list, and the built package loading
 * through its `exports` map from both module systems on the running Node, in a child process so that
 * no test-runner transform is involved. `serveOne` is a CommonJS script that serves one real request
 * through the framework and prints [export names, status, RateLimit-Policy] as JSON, proving the
 * require() graph (the package, @ratekeeper/core, the framework) works end to end.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

export interface Published {
  /** The package name, as imported. */
  readonly name: string;
  /** The package directory, with a trailing slash. */
  readonly root: string;
  /** The module namespace of its src/index.ts. */
  readonly api: Record<string, unknown>;
  /** The documented export names, sorted. */
  readonly exports: readonly string[];
  readonly serveOne: string;
  /** The RateLimit-Policy serveOne's limiter announces. */
  readonly policy: string;
}

export function exportsSuite(pkg: Published): void {
  const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: pkg.root, encoding: 'utf8', timeout: 20_000 });

  describe(`${pkg.name} exports`, () => {
    it('exports exactly the documented names', () => {
      expect(Object.keys(pkg.api).sort()).toEqual(pkg.exports);
    });

    it('has been built (the root `pnpm test` builds first)', () => {
      expect(existsSync(`${pkg.root}dist/cjs/index.js`) && existsSync(`${pkg.root}dist/esm/index.js`)).toBe(true);
    });

    it('is require()d from CommonJS and serves a request', () => {
      expect(JSON.parse(node(['-e', pkg.serveOne]))).toEqual([pkg.exports, 200, pkg.policy]);
    });

    it('is import()ed from ESM with the same names', () => {
      const out = node(['--input-type=module', '-e', `const m = await import('${pkg.name}'); console.log(JSON.stringify([...Object.keys(m).sort(), m.rateLimit().name]))`]);
      expect(JSON.parse(out)).toEqual([...pkg.exports, 'rateLimit']);
    });

    it('resolves the CommonJS and ESM entries to dist', () => {
      const script = `import { createRequire } from 'node:module'; console.log(JSON.stringify([createRequire(process.cwd() + '/').resolve('${pkg.name}'), import.meta.resolve('${pkg.name}')]))`;
      const [cjs, esm] = JSON.parse(node(['--input-type=module', '-e', script])) as [string, string];
      expect(cjs).toBe(`${pkg.root}dist/cjs/index.js`);
      expect(esm).toBe(`file://${pkg.root}dist/esm/index.js`);
    });
  });
}
