/**
 * Mutant builds, for every store package's tests: deliberately broken variants of a store, each the
 * package's own TypeScript source with a few exact edits, compiled by tsc into the package's
 * .builds/<name>/ (ignored by git), so that a test, or a worker process, loads it as it loads dist.
 * Every edit must match its source exactly once: a mutant whose edit no longer applies fails loudly
 * instead of silently testing the unbroken store. Each package keeps its own table of mutants and
 * calls mutantBuilder with it. (RedisStore's mutants also edit core, and build their own way.)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Edit: in `file` (under src/), the one occurrence of `from` becomes `to`. */
export type Edit = readonly [file: string, from: string, to: string];

/**
 * mutantBuilder answers the build function of the package at `packageDir` over its `mutants`: it
 * compiles the named mutant (once per process) and answers the URL of its index.js.
 */
export function mutantBuilder<Name extends string>(packageDir: string, mutants: Readonly<Record<Name, readonly Edit[]>>): (name: Name) => string {
  const built = new Map<Name, string>();
  return (name) => {
    const known = built.get(name);
    if (known !== undefined) return known;
    const root = join(packageDir, '.builds', name);
    rmSync(root, { recursive: true, force: true });
    cpSync(join(packageDir, 'src'), join(root, 'src'), { recursive: true });
    for (const [file, from, to] of mutants[name]) {
      const path = join(root, 'src', file);
      const source = readFileSync(path, 'utf8');
      const found = source.split(from).length - 1;
      if (found !== 1) throw new Error(`mutant ${name}: expected one "${from.trim()}" in ${file}, found ${found}`);
      writeFileSync(path, source.replace(from, to));
    }
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({ extends: join(packageDir, 'tsconfig.json'), compilerOptions: { rootDir: 'src', outDir: 'dist', declaration: false, sourceMap: false }, include: ['src'] }),
    );
    // The package's own TypeScript, run by Node (under Bun's test runner too).
    const tsc = createRequire(join(packageDir, 'package.json')).resolve('typescript/bin/tsc');
    execFileSync(process.execPath.includes('bun') ? 'node' : process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
    const url = pathToFileURL(join(root, 'dist', 'index.js')).href;
    built.set(name, url);
    return url;
  };
}
