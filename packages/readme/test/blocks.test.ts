/**
 * Every code block of the user documentation compiles as written (./blocks.ts lists them): each is
 * written to extracted/ in this package (extracted/, so that its imports resolve from this package's
 * node_modules, which hold every ratekeeper package and the frameworks the READMEs use) and the lot is
 * checked by tsc: TypeScript blocks strict, JavaScript blocks (checkJs) strict but for implicit any.
 * An undefined name, a misspelt option, an import of something a package does not export, or a block
 * missing its imports fails here, naming the block.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { type Block, blocks, documents } from './blocks.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const DIR = join(PACKAGE, 'extracted');

/** tsc checks the blocks `config` takes in and answers its diagnostics ('' when there are none). */
function tsc(config: string): string {
  const bin = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [bin, '-p', join(PACKAGE, config), '--pretty', 'false'], { cwd: PACKAGE, encoding: 'utf8' });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

/** moduleName is a block's file name: its place, made a file name. */
function moduleName(block: Block): string {
  return `${block.at.replace(/[^A-Za-z0-9]+/g, '_')}${block.extension}`;
}

it('compiles every JavaScript and TypeScript block of the READMEs and MIGRATING.md as written', () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const byName = new Map<string, Block>();
  const skipped: string[] = [];
  for (const document of documents()) {
    for (const block of blocks(document)) {
      if (block.skipped !== undefined) {
        skipped.push(`${block.at}: ${block.skipped}`);
        continue;
      }
      byName.set(moduleName(block), block);
      // Each block a module of its own (.mjs, .cjs, .mts and .cts files all are), so that two blocks may declare the same names.
      writeFileSync(join(DIR, moduleName(block)), block.code);
    }
  }
  expect(byName.size).toBeGreaterThan(30);
  // A canary the check must catch (else it checks nothing): a block that uses what it never imported.
  writeFileSync(join(DIR, 'canary.mjs'), "app.use(rateLimit({ algorithm: 'token-bucket' }));\n");
  // TypeScript blocks strict; JavaScript blocks strict but for implicit any (JavaScript cannot annotate).
  const output = ['tsconfig.blocks.json', 'tsconfig.blocks-js.json'].map(tsc).join('\n');
  // Each diagnostic, with the README line it comes from.
  const problems = output
    .split('\n')
    .filter((line) => line.includes('error TS'))
    .map((line) => {
      const match = /^extracted\/([^(]+)\((\d+),\d+\): (.*)$/.exec(line);
      const block = match ? byName.get(match[1] as string) : undefined;
      if (!match || !block) return line;
      const [file, start] = block.at.split(':');
      return `${file}:${Number(start) + Number(match[2]) - 1}: ${match[3]}`;
    });
  const canary = problems.filter((line) => line.startsWith('extracted/canary.mjs'));
  expect(canary.map((line) => line.replace(/^.*error (TS\d+).*'(\w+)'.*$/, '$1 $2'))).toEqual(['TS2304 app', 'TS2304 rateLimit']);
  if (skipped.length > 0) console.log(`blocks left out:\n${skipped.join('\n')}`);
  expect(problems.filter((line) => !canary.includes(line))).toEqual([]);
});
