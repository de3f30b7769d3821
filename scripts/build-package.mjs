// Builds the workspace package in the current directory: the ES modules into dist/esm with plain `tsc`
// (nothing bundled or minified), and for CommonJS a few lines per entry point in dist/cjs. What is
// published is what a user runs:
//   - no source maps: tsc's output is readable ES2022 with the source's names, so stack traces and
//     debuggers show code a reader can follow (maps with the sources embedded made core 1.75 MB);
//   - JavaScript without comments; the declarations keep their JSDoc for editors' hover;
//   - the code once. `require()` of an ES module works unflagged and silently on the Node versions the
//     packages support (engines: ^20.19.0 || >=22.12.0), so each CommonJS entry is
//     `module.exports = require('../esm/<entry>.js')` (a copy of it where the entry has a default
//     export, see below): one module instance whichever way a user loads it (no dual-package hazard:
//     one MemoryStore class, one registry of store names, one once-per-process warning), and core
//     unpacks to 386 kB instead of 754 kB with a second tsc build for CommonJS. Its declaration
//     re-exports the ESM declarations, so types and JSDoc exist once too (a `require` condition
//     naming dist/esm directly would run as well, but TypeScript's node16 resolution would then call
//     the package ESM-only for CommonJS files). The entries are the `require` targets of
//     package.json's exports (and `main`), so a new subpath gets its stub.
// Tests run the TypeScript sources, with vitest's own maps.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, posix } from 'node:path';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const run = (...args) => execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', ...args], { stdio: 'inherit' });

rmSync('dist', { recursive: true, force: true });
// The JavaScript without comments, then the declarations alone, with their JSDoc.
run('--outDir', 'dist/esm', '--sourceMap', 'false', '--declaration', 'false', '--removeComments');
run('--outDir', 'dist/esm', '--sourceMap', 'false', '--emitDeclarationOnly');

/** cjsEntries lists the dist/cjs/*.js files package.json's `require` conditions and `main` name. */
function cjsEntries(manifest) {
  const found = new Set();
  const walk = (value, underRequire) => {
    if (typeof value === 'string') {
      if (underRequire && value.startsWith('./dist/cjs/') && value.endsWith('.js')) found.add(value.slice(2));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, underRequire || key === 'require');
    }
  };
  walk(manifest.exports, false);
  walk(manifest.main, true);
  return [...found].sort();
}

/** hasDefaultExport says whether the ESM declaration file exports `default` (`export *` leaves it out). */
function hasDefaultExport(declaration) {
  const ts = require('typescript');
  const program = ts.createProgram([declaration], { noLib: true, types: [], module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(declaration));
  return module !== undefined && checker.getExportsOfModule(module).some((s) => s.name === 'default');
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
mkdirSync('dist/cjs', { recursive: true });
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
for (const entry of cjsEntries(manifest)) {
  const esm = entry.replace(/^dist\/cjs\//, 'dist/esm/');
  let target = posix.relative(posix.dirname(entry), esm);
  if (!target.startsWith('.')) target = `./${target}`;
  mkdirSync(dirname(entry), { recursive: true });
  // An entry with a default export (fastify's) gets a copy of the namespace that names `default`
  // again: tools that read CommonJS statically (attw's FalseExportDefault) cannot see it through
  // require(esm) and would call the declaration's `export default` a lie. Same values either way.
  const withDefault = hasDefaultExport(esm.replace(/\.js$/, '.d.ts'));
  const js = withDefault ? `const esm = require('${target}');\nmodule.exports = { ...esm };\nmodule.exports.default = esm.default;\n` : `module.exports = require('${target}');\n`;
  writeFileSync(entry, `'use strict';\n${js}`);
  // TypeScript's node16 mode predates require(esm) and reports TS1479 on each re-export (nodenext and
  // node20 accept them); the types still resolve, and Node runs it, so the error is silenced.
  const names = withDefault ? ['*', '{ default }'] : ['*'];
  const ignore = '// @ts-ignore TS1479 under node16: the ES module is require()d, as every Node in engines can';
  writeFileSync(entry.replace(/\.js$/, '.d.ts'), names.map((n) => `${ignore}\nexport ${n} from '${target}';\n`).join(''));
}
