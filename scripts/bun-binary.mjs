/**
 * bunBinary finds Bun's executable from the `bun` npm package, a devDependency of the package that
 * asks (resolved from `from`, the caller's import.meta.url): the package's own binary when its
 * postinstall ran, else the platform package's (pnpm does not run the postinstall). Undefined when
 * neither is there. Shared by the runtimes and SQLite tests and the HTTP benchmark.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** @param {string | URL} from @returns {string | undefined} */
export function bunBinary(from) {
  try {
    const root = dirname(createRequire(from).resolve('bun/package.json'));
    const own = join(root, 'bin', 'bun.exe');
    if (existsSync(own) && statSync(own).size > 1_000_000) return own;
    const platform = `@oven/bun-${process.platform}-${process.arch === 'arm64' ? 'aarch64' : process.arch}`;
    const binary = join(dirname(createRequire(join(root, 'package.json')).resolve(`${platform}/package.json`)), 'bin', 'bun');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
