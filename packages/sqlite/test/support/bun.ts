/**
 * bunBinary finds Bun's executable from the `bun` npm package (a devDependency): the package's own
 * binary when its postinstall ran, else the platform package's (pnpm does not run the postinstall).
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export function bunBinary(): string | undefined {
  try {
    const root = dirname(require.resolve('bun/package.json'));
    const own = join(root, 'bin', 'bun.exe');
    if (existsSync(own) && statSync(own).size > 1_000_000) return own;
    const platform = `@oven/bun-${process.platform}-${process.arch === 'arm64' ? 'aarch64' : process.arch}`;
    const binary = join(dirname(createRequire(join(root, 'package.json')).resolve(`${platform}/package.json`)), 'bin', 'bun');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
