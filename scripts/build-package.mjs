// Builds the workspace package in the current directory twice from one source: ESM into dist/esm and
// CommonJS into dist/cjs (with a package.json marking it so), so `import` and `require()` both work
// on Node 20. Each build is plain `tsc`; nothing is bundled or minified. What is published is what a
// user runs: no source maps (tsc's output is readable ES2022 with the source's names, so stack traces
// and debuggers show code a reader can follow; maps with the sources embedded were most of the weight,
// core 1.75 MB unpacked with them, 0.77 MB without) and JavaScript without comments (core 0.64 MB); the
// declarations keep their JSDoc for editors. Tests run the TypeScript sources, with vitest's own maps.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = (...args) => execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', ...args], { stdio: 'inherit' });

rmSync('dist', { recursive: true, force: true });
// Per format: the JavaScript without comments, then the declarations alone, with their JSDoc (editors' hover).
const CJS = ['--module', 'commonjs', '--moduleResolution', 'node10', '--verbatimModuleSyntax', 'false'];
for (const [dir, extra] of [
  ['dist/esm', []],
  ['dist/cjs', CJS],
]) {
  run('--outDir', dir, '--sourceMap', 'false', '--declaration', 'false', '--removeComments', ...extra);
  run('--outDir', dir, '--sourceMap', 'false', '--emitDeclarationOnly', ...extra);
}
mkdirSync('dist/cjs', { recursive: true });
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
