// Builds the workspace package in the current directory twice from one source: ESM into dist/esm and
// CommonJS into dist/cjs (with a package.json marking it so), so `import` and `require()` both work
// on Node 20. Each build is plain `tsc`; nothing is bundled. Source maps carry the TypeScript source
// inline (--inlineSources), so the published package needs no src/ beside dist/ for debuggers and traces.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = (...args) => execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', ...args], { stdio: 'inherit' });

rmSync('dist', { recursive: true, force: true });
run('--outDir', 'dist/esm', '--inlineSources');
run('--outDir', 'dist/cjs', '--inlineSources', '--module', 'commonjs', '--moduleResolution', 'node10', '--verbatimModuleSyntax', 'false');
mkdirSync('dist/cjs', { recursive: true });
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
