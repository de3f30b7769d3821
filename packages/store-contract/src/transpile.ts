/**
 * transpileTree: a mutant build's compiler. Every TypeScript file under `dir`/src becomes JavaScript
 * under `dir`/`outDir`, one file at a time with TypeScript's own transpiler, types stripped and
 * nothing checked: what tsc emits for this source (every package compiles with isolatedModules and
 * verbatimModuleSyntax, so one file's output never depends on another's types), in a fraction of
 * tsc's time. The type checking happens where it belongs, in the workspace's typecheck; a mutant
 * differs from its package by an edit that the mutant's test, not the compiler, must catch.
 * A `.cts` file is CommonJS (`.cjs`), every other one an ES module (`.js`).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import type { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

type TypeScript = typeof import('typescript');

/** transpileTree compiles `dir`/src into `dir`/`outDir`, with the typescript that `require` resolves. */
export function transpileTree(require: ReturnType<typeof createRequire>, dir: string, outDir: string): void {
  const ts = require('typescript') as TypeScript;
  const src = join(dir, 'src');
  for (const file of sourcesUnder(src)) {
    const commonJs = file.endsWith('.cts');
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: commonJs ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext,
        verbatimModuleSyntax: !commonJs,
        esModuleInterop: true,
        sourceMap: false,
      },
    });
    const out = join(dir, outDir, relative(src, file))
      .replace(/\.cts$/, '.cjs')
      .replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
}

function* sourcesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourcesUnder(path);
    else if (/\.c?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}
