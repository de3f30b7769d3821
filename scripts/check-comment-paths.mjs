#!/usr/bin/env node
// Comment paths, checked by `pnpm check` (scripts/check-packages.sh) and usable alone:
//   node scripts/check-comment-paths.mjs
// Every file path a comment names must exist, so a move or a rename cannot leave comments pointing
// at nothing (the last restructure left 14 such: `./remote.ts` from redis-store.ts, `./prepare.ts` from
// http/options/options.ts, `src/driver.ts` in knip.jsonc). Read: the comments of every .ts/.mts/.cts
// file under packages/*/src and packages/*/test (the TypeScript parser finds them, so a `//` inside a
// string or a URL is not a comment), and the comments of knip.jsonc. A word is a path when it holds a
// `/` and ends in a file's extension; it is looked up by how it starts:
//   ./x.ts, ../y/z.ts    from the commenting file's folder (a NodeNext `.js` also finds its `.ts`)
//   packages/…, scripts/…, examples/…, benchmarks/…, docs/…   from the repository's root
//   src/…, test/…        from the commenting file's package (in knip.jsonc: from the workspace the
//                        comment stands in or before, or the root)
//   anything else        the end of some file's path in the repository (`core/src/limiter/ban.ts`,
//                        `lua/scripts.ts`: the text around it names the package), or a dependency's
//                        file (`fastify/types/route.d.ts`) under the package's node_modules
// A `*` matches within one folder level. Before checking the repository it checks itself on fixtures
// it writes to a temporary folder: a checker that stopped catching a broken path fails too. Exits 1
// naming each broken path with the file and line that names it.
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';
import { listFiles } from './check-architecture.mjs';
import { runWhenMain, selfTestOn } from './self-test.mjs';

const EXTENSION = /\.(ts|mts|cts|tsx|mjs|cjs|js|json|jsonc|md|sh|lua|sql)$/;
const ROOTED = /^(packages|scripts|examples|benchmarks|docs|\.changeset|\.ci)\//;

/** commentsOf answers the comments of a TypeScript source as [offset, text] pairs, each once. */
export function commentsOf(text) {
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
  const found = new Map();
  const add = (ranges) => {
    for (const r of ranges ?? []) found.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    node.forEachChild(visit);
  };
  visit(source);
  add(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return [...found].sort((a, b) => a[0] - b[0]);
}

/** jsoncComments answers the comments of a JSONC text as [offset, text] pairs (strings skipped). */
export function jsoncComments(text) {
  const found = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      found.push([i, text.slice(i, end === -1 ? text.length : end)]);
      i = end === -1 ? text.length : end;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      found.push([i, text.slice(i, end === -1 ? text.length : end + 2)]);
      i = end === -1 ? text.length : end + 1;
    }
  }
  return found;
}

/** pathsIn lists the words of a comment that look like file paths: a `/`, a file's extension, no URL. */
export function pathsIn(comment) {
  const paths = [];
  for (let word of comment.split(/[\s,;()[\]{}<>'"`|]+/)) {
    word = word.replace(/[.,:;!?]+$/, '').replace(/^[*]+(?=\w)/, '');
    if (!word.includes('/') || word.includes('//') || word.includes(':') || word.startsWith('/') || word.startsWith('@')) continue;
    if (!/^[\w.*/-]+$/.test(word) || !EXTENSION.test(word)) continue;
    paths.push(word);
  }
  return paths;
}

/** Repository answers whether paths exist, over the list of its files (git's, or a walk outside git). */
class Repository {
  constructor(root, files) {
    this.root = root;
    this.files = new Set(files ?? listFiles(root));
    this.suffixes = new Set();
    for (const f of this.files) {
      const parts = f.split('/');
      for (let i = 1; i < parts.length; i++) this.suffixes.add(parts.slice(i).join('/'));
    }
  }

  /** has answers whether the root-relative `path` (a `*` matching within one folder level) is a file. */
  has(path) {
    path = posix.normalize(path);
    if (!path.includes('*')) return this.files.has(path) || existsSync(join(this.root, path));
    const pattern = glob(path);
    for (const f of this.files) if (pattern.test(f)) return true;
    return false;
  }

  /** ends answers whether `path` is the end of some file's path. */
  ends(path) {
    if (!path.includes('*')) return this.suffixes.has(path) || this.files.has(path);
    const pattern = new RegExp(`(^|/)${glob(path).source.slice(1)}`);
    for (const f of this.files) if (pattern.test(f)) return true;
    return false;
  }
}

function glob(path) {
  const parts = path.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]*')}$`);
}

/** spellings lists the files a path may mean: itself, and for NodeNext's `.js` the source it compiles from. */
function spellings(path) {
  const out = [path];
  if (/\.js$/.test(path)) out.push(path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx'));
  if (/\.mjs$/.test(path)) out.push(path.replace(/\.mjs$/, '.mts'));
  if (/\.cjs$/.test(path)) out.push(path.replace(/\.cjs$/, '.cts'));
  return out;
}

/**
 * exists answers whether `path`, named in a comment of the root-relative file `from` (whose package or
 * workspace folders, root-relative, are `bases`), names a file.
 */
function exists(repo, path, from, bases) {
  const any = (candidates) => candidates.some((c) => spellings(c).some((s) => repo.has(s)));
  if (path.startsWith('./') || path.startsWith('../')) return any(from === 'knip.jsonc' ? bases.map((b) => posix.join(b, path)) : [posix.join(posix.dirname(from), path)]);
  if (ROOTED.test(path)) return any([path]);
  if (/^(src|test)\//.test(path)) return any(bases.map((b) => posix.join(b, path)));
  if (spellings(path).some((s) => repo.ends(s))) return true;
  return bases.some((b) => existsSync(join(repo.root, b, 'node_modules', path)));
}

/** lineOf answers the 1-based line of `offset` in `text`. */
function lineOf(text, offset) {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * knipBases answers, for a comment at `offset` of knip.jsonc, the workspaces it may speak of: the next
 * key's, the enclosing one's, and the root; a comment outside the workspaces (the file's head) speaks
 * of every package.
 */
function knipBases(repo, text, offset) {
  const bases = new Set(['.']);
  if (!text.slice(0, offset).includes('"workspaces"')) for (const f of repo.files) if (/^packages\/[^/]+\/package\.json$/.test(f)) bases.add(posix.dirname(f));
  const workspace = (key) => {
    if (key === '.') return;
    if (!key.includes('*')) return bases.add(key);
    const pattern = glob(key);
    for (const d of new Set([...repo.files].map((f) => posix.dirname(f)))) if (pattern.test(d)) bases.add(d);
  };
  const after = text.slice(offset).replace(/^(\s*\/\/[^\n]*\n)+/, '');
  const next = /^\s*"([^"]+)"\s*:\s*\{/.exec(after);
  if (next) workspace(next[1]);
  const keys = [...text.slice(0, offset).matchAll(/^ {4}"([^"]+)"\s*:\s*\{/gm)];
  if (keys.length > 0 && text.slice(0, offset).includes('"workspaces"')) workspace(keys[keys.length - 1][1]);
  return [...bases];
}

/** check answers one line for each broken path in the comments of the repository at `root`. */
export function check(root, files) {
  const repo = new Repository(root, files);
  const failures = [];
  const sources = [...repo.files].filter((f) => /^packages\/[^/]+\/(src|test)\/.*\.(ts|mts|cts|tsx)$/.test(f) && !/\.d\.[mc]?ts$/.test(f)).sort();
  for (const file of sources) {
    const text = readFileSync(join(root, file), 'utf8');
    const bases = [file.split('/').slice(0, 2).join('/')];
    for (const [offset, comment] of commentsOf(text)) {
      for (const path of pathsIn(comment)) {
        if (!exists(repo, path, file, bases)) failures.push(`${file}:${lineOf(text, offset + comment.indexOf(path))} names ${path}, which does not exist`);
      }
    }
  }
  if (repo.has('knip.jsonc')) {
    const text = readFileSync(join(root, 'knip.jsonc'), 'utf8');
    for (const [offset, comment] of jsoncComments(text)) {
      for (const path of pathsIn(comment)) {
        if (!exists(repo, path, 'knip.jsonc', knipBases(repo, text, offset))) {
          failures.push(`knip.jsonc:${lineOf(text, offset + comment.indexOf(path))} names ${path}, which does not exist`);
        }
      }
    }
  }
  return failures;
}

/** selfTest runs the check on fixtures with known broken paths and answers what it missed or invented. */
export function selfTest() {
  return selfTestOn('check-comment-paths', (write, root) => {
    write('packages/a/src/remote.ts', 'export const remote = 1;\n');
    write('packages/a/src/store/index.ts', 'export const s = 1;\n');
    write(
      'packages/a/src/store.ts',
      [
        '// Uses ./remote.ts and ../src/store/index.ts; the old ./gone.ts is not there.',
        "const url = 'https://example.com/x/y.ts // ./not-a-comment.ts';",
        '/**',
        ' * See packages/a/src/remote.js (NodeNext spelling), src/store/*.ts, a/src/remote.ts and',
        ' * packages/b/src/missing.ts.',
        ' */',
        'export const store = url; // and src/nowhere.ts',
        '',
      ].join('\n'),
    );
    write('packages/a/test/x.test.ts', '// tests ../src/remote.ts and ./helper.ts\nexport {};\n');
    write(
      'knip.jsonc',
      [
        '// Scripts live in scripts/run.mjs.',
        '{',
        '  "workspaces": {',
        '    // Loads its driver by name (src/remote.ts), not src/driver.ts.',
        '    "packages/a": {',
        '      "entry": ["src/index.ts"]',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const failures = check(root);
    const expected = [
      'packages/a/src/store.ts:1 names ./gone.ts, which does not exist',
      'packages/a/src/store.ts:5 names packages/b/src/missing.ts, which does not exist',
      'packages/a/src/store.ts:7 names src/nowhere.ts, which does not exist',
      'packages/a/test/x.test.ts:1 names ./helper.ts, which does not exist',
      'knip.jsonc:1 names scripts/run.mjs, which does not exist',
      'knip.jsonc:4 names src/driver.ts, which does not exist',
    ];
    return { expected, failures };
  });
}

runWhenMain(import.meta.url, selfTest, check, 'check-comment-paths: every path a comment in packages/*/src, packages/*/test or knip.jsonc names exists');
