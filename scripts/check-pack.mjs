// Checks what `npm pack` would publish for one package directory (argument, default: the current one):
// LICENSE, README.md and package.json at the top, everything else under dist/ (but for one
// <subpath>/package.json per subpath export, the stub that points resolvers without exports support
// into dist/, each checked to point at files in the tarball), and every file that package.json points
// at (main, types, each exports condition) inside the tarball. Nothing else of note: no sources,
// tests, configs, tsbuildinfo or stray files. And the weight: the unpacked size npm reports must not
// exceed the package's budget in scripts/size-budgets.json (bytes, the one place budgets live; a
// package without one fails), so the size cannot creep back unnoticed: a commit that needs more
// raises the budget and says why. Exits 1 with the list of problems.
// Usage: node scripts/check-pack.mjs packages/core
//        node scripts/check-pack.mjs --self-test   (the checks on fixture packages with known defects)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGETS = fileURLToPath(new URL('./size-budgets.json', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/** checkPack answers the problems of what `npm pack` would publish from `dir`, and a summary line. */
export function checkPack(dir, budgets) {
  const manifest = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
  const [report] = JSON.parse(execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  const files = new Set(report.files.map((f) => f.path));
  const problems = [...layoutProblems(dir, manifest, files)];

  // Every path package.json names must be in the tarball.
  const targets = [];
  const walk = (value, where) => {
    if (typeof value === 'string') targets.push([value, where]);
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${where}.${k}`);
  };
  for (const field of ['main', 'module', 'types', 'typings', 'exports']) walk(manifest[field], field);
  for (const [target, where] of targets) {
    const path = target.replace(/^\.\//, '');
    if (path === 'package.json' || path.includes('*')) continue;
    if (!files.has(path)) problems.push(`${where} points at ${target}, which is not in the tarball (built?)`);
  }

  const budget = budgets[manifest.name];
  if (typeof budget !== 'number') problems.push(`no size budget for ${manifest.name} in scripts/size-budgets.json (it unpacks to ${report.unpackedSize} bytes)`);
  else if (report.unpackedSize > budget) {
    problems.push(
      `unpacks to ${kB(report.unpackedSize)} (${report.unpackedSize} bytes), over its budget of ${kB(budget)} in scripts/size-budgets.json: ship less, or raise the budget in a commit that says why`,
    );
  }
  const weight = typeof budget === 'number' ? `, ${kB(report.unpackedSize)} unpacked of a ${kB(budget)} budget` : '';
  return { name: manifest.name, problems, summary: `${files.size} files, LICENSE, README.md, dist/ and ${targets.length} entry points, nothing else${weight}` };
}

/** layoutProblems checks the top-level files, the subpath stubs and that all else is built output under dist/. */
function* layoutProblems(dir, manifest, files) {
  // The subpath stubs: `./store` in exports allows store/package.json, whose main and types must be in the tarball.
  const stubs = new Set(
    Object.keys(manifest.exports ?? {})
      .filter((k) => k.startsWith('./') && k !== './package.json' && !k.includes('*'))
      .map((k) => `${k.slice(2)}/package.json`),
  );
  for (const stub of stubs) {
    if (!files.has(stub)) continue;
    const pointed = JSON.parse(readFileSync(`${dir}/${stub}`, 'utf8'));
    for (const field of ['main', 'types']) {
      const target = pointed[field] === undefined ? undefined : join(dirname(stub), pointed[field]);
      if (target === undefined || !files.has(target)) yield `${stub} ${field} points at ${pointed[field]}, which is not in the tarball`;
    }
  }
  for (const required of ['LICENSE', 'README.md', 'package.json']) {
    if (!files.has(required)) yield `${required} is missing from the tarball${required === 'LICENSE' ? ' (cp LICENSE from the repository root)' : ''}`;
  }
  for (const file of files) {
    if (['LICENSE', 'README.md', 'package.json', 'CHANGELOG.md'].includes(file) || stubs.has(file)) continue;
    if (!file.startsWith('dist/')) yield `${file} is outside dist/ (narrow package.json "files")`;
    else if (/\.test\.|\.tsbuildinfo$|(^|\/)test\//.test(file)) yield `${file} is a test or build artefact`;
  }
  if (![...files].some((f) => f.endsWith('.d.ts'))) yield 'no type declarations (.d.ts) in the tarball';
}

/** selfTest packs fixture packages with known defects and answers what the checks missed or added. */
export function selfTest() {
  const root = mkdtempSync(join(tmpdir(), 'check-pack-'));
  const fixture = (name, distBytes) => {
    const dir = join(root, name);
    mkdirSync(join(dir, 'dist'), { recursive: true });
    const manifest = { name: `@fixture/${name}`, version: '1.0.0', type: 'module', exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }, files: ['dist'] };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
    for (const file of ['LICENSE', 'README.md', 'dist/index.d.ts']) writeFileSync(join(dir, file), 'x\n');
    writeFileSync(join(dir, 'dist/index.js'), 'x'.repeat(distBytes));
    return dir;
  };
  try {
    const budgets = { '@fixture/light': 10_000, '@fixture/heavy': 10_000 };
    const found = {};
    for (const [name, bytes] of [
      ['light', 4_000],
      ['heavy', 12_000],
      ['unbudgeted', 10],
    ]) {
      const { problems } = checkPack(fixture(name, bytes), budgets);
      found[name] = problems.map((p) => p.replace(/\d+ bytes\)/, 'N bytes)').replace(/\d+\.\d kB \(/, 'S kB ('));
    }
    const expected = {
      light: [],
      heavy: ['unpacks to S kB (N bytes), over its budget of 10.0 kB in scripts/size-budgets.json: ship less, or raise the budget in a commit that says why'],
      unbudgeted: ['no size budget for @fixture/unbudgeted in scripts/size-budgets.json (it unpacks to N bytes)'],
    };
    const missed = [];
    for (const [name, want] of Object.entries(expected)) {
      if (JSON.stringify(found[name]) !== JSON.stringify(want)) missed.push(`self-test: @fixture/${name}: want ${JSON.stringify(want)}, got ${JSON.stringify(found[name])}`);
    }
    return missed;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--self-test') {
    const missed = selfTest();
    for (const m of missed) console.error(m);
    if (missed.length > 0) process.exit(1);
    console.log('check-pack: self-test: a package over its size budget and one without a budget fail, one under it passes');
  } else {
    const { name, problems, summary } = checkPack(resolve(process.argv[2] ?? '.'), JSON.parse(readFileSync(BUDGETS, 'utf8')));
    if (problems.length > 0) {
      console.error(`check-pack: ${name}:\n  ${problems.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`check-pack: ${name}: ${summary}`);
  }
}
