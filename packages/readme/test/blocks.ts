/**
 * The code blocks of the user documentation: every ```js / ```ts block (and their spellings mjs, cjs,
 * javascript, typescript) of the root README, MIGRATING.md, the pages of docs/, the benchmarks README
 * and the README of every package and example,
 * with where it stands (file and line), so that a failure names the block.
 *
 * A block is written as its own module: TypeScript when fenced ts, JavaScript otherwise; CommonJS when
 * it calls require(), ESM otherwise. A block right after a line `<!-- not compiled: <why> -->` is left
 * out (the reason is printed); nothing else is. A line `<!-- not run: <why> -->` right before a block
 * keeps it compiled but out of ./run.test.ts (a block not compiled is not run either).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Block {
  /** Where it stands: `README.md:26`. */
  readonly at: string;
  readonly code: string;
  /** The file extension the block is written with: .mts, .cts, .mjs or .cjs. */
  readonly extension: '.mts' | '.cts' | '.mjs' | '.cjs';
  /** Why it is left out, or undefined. */
  readonly skipped: string | undefined;
  /** Why it is compiled but not run, or undefined (a block left out of compiling is not run either). */
  readonly unrun: string | undefined;
}

const FENCE = /^```(js|javascript|mjs|cjs|ts|typescript)[^\S\n]*\n([\s\S]*?)^```/gm;
const SKIP = /<!-- not compiled: (.+?) -->\s*$/;
const UNRUN = /<!-- not run: (.+?) -->\s*$/;

/** documents lists the documentation files, relative to the repository. */
export function documents(): string[] {
  const files = ['README.md', 'MIGRATING.md', 'benchmarks/README.md'];
  for (const entry of readdirSync(join(ROOT, 'docs'), { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.md')) files.push(`docs/${entry.name}`);
  }
  for (const dir of ['packages', 'examples']) {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      try {
        readFileSync(join(ROOT, dir, entry.name, 'README.md'));
        files.push(`${dir}/${entry.name}/README.md`);
      } catch {
        // No README.
      }
    }
  }
  return files.sort();
}

/** blocks extracts the code blocks of `file` (relative to the repository). */
export function blocks(file: string): Block[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: Block[] = [];
  for (const match of text.matchAll(FENCE)) {
    const lang = match[1] as string;
    const code = match[2] as string;
    const line = text.slice(0, match.index).split('\n').length + 1;
    const ts = lang === 'ts' || lang === 'typescript';
    const cjs = lang === 'cjs' || /\brequire\(/.test(code);
    const extension = ts ? (cjs ? '.cts' : '.mts') : cjs ? '.cjs' : '.mjs';
    const before = text.slice(0, match.index).trimEnd().split('\n').pop() ?? '';
    const skip = SKIP.exec(before);
    const unrun = skip?.[1] ?? UNRUN.exec(before)?.[1];
    found.push({ at: `${relative(ROOT, join(ROOT, file))}:${line}`, code, extension, skipped: skip?.[1], unrun });
  }
  return found;
}
