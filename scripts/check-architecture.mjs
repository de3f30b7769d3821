#!/usr/bin/env node
// Architecture checks, run by `pnpm check` (scripts/check-packages.sh) and usable alone:
//   node scripts/check-architecture.mjs
//   circles  no import circle among the files of any package's src/ (packages/*/src/**/*.ts): every
//            relative import counts, `import type` included, since a circle of types still leaves a
//            reader no file to start from. Each circle is printed as the chain of files that closes it.
//   paths    every file or folder path ARCHITECTURE.md names exists (see docPaths for what counts as a
//            path), so the map cannot drift from the code unnoticed.
// Before checking the repository it checks itself on fixtures it writes to a temporary folder (a
// two-file circle, a three-file circle through `import type` and `export … from`, a dynamic import, a
// clean package; a document naming a missing file): a checker that stopped catching them fails too.
// Exits 1 when anything failed. No dependencies: a regex over import statements and Tarjan's strongly
// connected components.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { runWhenMain, selfTestOn } from './self-test.mjs';

/** sourceFiles lists the .ts/.mts/.cts files under `dir` (declaration files excluded). */
function sourceFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') found.push(...sourceFiles(path));
    } else if (/\.(ts|mts|cts|tsx)$/.test(entry.name) && !/\.d\.[mc]?ts$/.test(entry.name)) {
      found.push(path);
    }
  }
  return found;
}

// Static imports and re-exports (at a line's start, over several lines), bare imports, dynamic imports.
const STATIC = /^[ \t]*(?:import|export)\b[^;'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const BARE = /^[ \t]*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** relativeImports lists the relative specifiers `text` imports or re-exports. */
export function relativeImports(text) {
  const specs = [];
  for (const pattern of [STATIC, BARE, DYNAMIC]) for (const m of text.matchAll(pattern)) specs.push(m[1]);
  return specs;
}

/** resolveImport maps a specifier (`./x.js`, as NodeNext spells it) to the source file it names, or undefined. */
function resolveImport(from, spec) {
  const base = resolve(dirname(from), spec);
  const candidates = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    base.replace(/\.mjs$/, '.mts'),
    base.replace(/\.cjs$/, '.cts'),
    `${base}.ts`,
    join(base, 'index.ts'),
    base,
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/**
 * circlesIn answers the import circles among the source files under `srcDir`: each a list of files
 * (relative to `srcDir`) in import order, the first importing the second and the last the first.
 */
export function circlesIn(srcDir) {
  const files = sourceFiles(srcDir);
  const edges = new Map();
  for (const file of files) {
    const targets = new Set();
    for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
      const target = resolveImport(file, spec);
      if (target !== undefined && target.startsWith(srcDir + sep)) targets.add(target);
    }
    edges.set(file, [...targets].sort());
  }
  const circles = [];
  for (const component of stronglyConnected(files, edges)) {
    const self = component.length === 1 && edges.get(component[0]).includes(component[0]);
    if (component.length > 1 || self) circles.push(cycleThrough(component, edges).map((f) => relative(srcDir, f)));
  }
  return circles;
}

/** stronglyConnected is Tarjan's algorithm, iterative (no recursion limit on deep chains). */
function stronglyConnected(nodes, edges) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  let next = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work = [[root, 0]];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const out = edges.get(node) ?? [];
      if (i < out.length) {
        frame[1]++;
        const to = out[i];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push([to, 0]);
        } else if (onStack.has(to)) {
          low.set(node, Math.min(low.get(node), index.get(to)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        components.push(component.sort());
      }
    }
  }
  return components;
}

/** cycleThrough finds one circle inside a strongly connected component, starting at its first file (breadth-first: the shortest). */
function cycleThrough(component, edges) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of edges.get(node)) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]));
        return path;
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return component;
}

/**
 * docPaths lists the paths a Markdown document names: every `code span` and every word of a fenced
 * block that looks like a path (it has a `/`, or it ends in a file's extension and starts in lowercase
 * or is all capitals), without placeholders (`<name>`), package names (`@scope/pkg`) or URLs.
 */
export function docPaths(markdown) {
  const words = [];
  const fenced = /^```[^\n]*\n([\s\S]*?)^```/gm;
  for (const m of markdown.matchAll(fenced)) words.push(...m[1].split(/[\s,()]+/));
  const prose = markdown.replace(fenced, '');
  for (const m of prose.matchAll(/`([^`\n]+)`/g)) words.push(m[1]);
  const paths = new Set();
  for (let word of words) {
    word = word.replace(/[.,;:]+$/, '');
    if (!/^[\w.*/-]+$/.test(word) || word.startsWith('@') || word.includes('//')) continue;
    // A bare name is a file when it has a file's extension and starts in lowercase or is all capitals (README.md, not Next.js).
    const extension = /\.(ts|mts|cts|mjs|cjs|js|md|json|jsonc|sh|yml|yaml)$/;
    if (!word.includes('/') && !(extension.test(word) && /^([a-z0-9_.-][\w.-]*|[A-Z0-9_-]+\.\w+)$/.test(word))) continue;
    if (/^\.+$/.test(word) || /^[./]*$/.test(word)) continue;
    paths.add(word);
  }
  return [...paths];
}

/**
 * missingPaths answers the paths `docFile` names that do not exist in `root`. A path is looked up from
 * the root when it starts with a root folder (`packages/core/src/store.ts`, `scripts/x.sh`); any other
 * (`core/src/store/contract.ts`, `lua/scripts.ts`, `step.test.ts`: the surrounding text names the package) must
 * be the end of some file's or folder's path. A `*` matches within one folder level; a path ending in
 * `/` must be a folder.
 */
export function missingPaths(root, docFile, files) {
  const entries = new Set(files ?? listFiles(root));
  for (const f of [...entries]) {
    for (let d = dirname(f); d !== '.' && !entries.has(d); d = dirname(d)) entries.add(d).add(`${d}/`);
  }
  const missing = [];
  for (const path of docPaths(readFileSync(docFile, 'utf8'))) {
    const body = path.split('*').map(escapeRegExp).join('[^/]*');
    const rooted = /^(packages|scripts|examples|benchmarks|\.changeset|\.ci)\//.test(path);
    const pattern = new RegExp(rooted ? `^${body}$` : `(^|/)${body}$`);
    let found = false;
    for (const e of entries) if (pattern.test(e)) found = true;
    if (!found) missing.push(path);
  }
  return missing;
}

function escapeRegExp(text) {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** listFiles lists the repository's files as git sees them (tracked and new, ignored ones left out); outside git, every file but node_modules/, dist/ and dot-folders. */
export function listFiles(root) {
  let out;
  try {
    out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return walk(root, '');
  }
  return out.split('\n').filter((f) => f !== '' && existsSync(join(root, f)));
}

function walk(root, dir) {
  const files = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (!entry.isDirectory()) files.push(path);
    else if (entry.name !== 'node_modules' && entry.name !== 'dist' && !entry.name.startsWith('.')) files.push(...walk(root, path));
  }
  return files;
}

/** check runs both checks on the repository at `root` and answers the failures, one line each. */
export function check(root) {
  const failures = [];
  const packages = join(root, 'packages');
  for (const name of readdirSync(packages).sort()) {
    const src = join(packages, name, 'src');
    if (!existsSync(src)) continue;
    for (const circle of circlesIn(src)) failures.push(`circle in packages/${name}/src: ${[...circle, circle[0]].join(' → ')}`);
  }
  const doc = join(root, 'ARCHITECTURE.md');
  for (const path of missingPaths(root, doc)) failures.push(`ARCHITECTURE.md names ${path}, which does not exist`);
  return failures;
}

/** selfTest runs the checks on fixtures with known defects and answers what the checker missed. */
export function selfTest() {
  return selfTestOn('check-architecture', (write, root) => {
    write('packages/a/src/store.ts', "import { all } from './all.js';\nexport class Store {}\n");
    write('packages/a/src/all.ts', "/** uses the store */\nimport type {\n  Store,\n} from './store.js';\nexport const all = 1;\n");
    write('packages/b/src/http/decide.ts', "import type { Charge } from './outcome.js';\nexport const decide = 1;\n");
    write('packages/b/src/http/outcome.ts', "export { settle } from '../settle.js';\nexport interface Charge {}\n");
    write('packages/b/src/settle.ts', "export const settle = () => import('./http/decide.js');\n");
    write('packages/c/src/index.ts', "import { x } from './x.js';\n// import { y } from './index.js';\nexport { x };\n");
    write('packages/c/src/x.ts', 'export const x = 1;\n');
    write('README.md', 'fixture\n');
    write(
      'ARCHITECTURE.md',
      '```\n packages/a/src/   packages/a/src/store.ts, all.ts (Next.js)\n```\n`a/src/all.ts`, `packages/c/src/gone.ts`, `@scope/pkg`, `<name>.ts`, Next.js, `README.md`\n',
    );
    const failures = check(root);
    const expected = [
      'circle in packages/a/src: all.ts → store.ts → all.ts',
      `circle in packages/b/src: http/decide.ts → http/outcome.ts → settle.ts → http/decide.ts`,
      'ARCHITECTURE.md names packages/c/src/gone.ts, which does not exist',
    ];
    return { expected, failures };
  });
}

runWhenMain(import.meta.url, selfTest, check, 'check-architecture: no import circle in packages/*/src; every path ARCHITECTURE.md names exists');
