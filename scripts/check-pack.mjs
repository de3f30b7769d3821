// Checks what `npm pack` would publish for one package directory (argument, default: the current one):
// LICENSE, README.md and package.json at the top, everything else under dist/ (but for one
// <subpath>/package.json per subpath export, the stub that points resolvers without exports support
// into dist/, each checked to point at files in the tarball), and every file that package.json points
// at (main, types, each exports condition) inside the tarball. Nothing else of note: no sources,
// tests, configs, tsbuildinfo or stray files. Exits 1 with the list of problems.
// Usage: node scripts/check-pack.mjs packages/core
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? '.');
const manifest = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const [report] = JSON.parse(execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
const files = new Set(report.files.map((f) => f.path));

const problems = [];
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
    if (target === undefined || !files.has(target)) problems.push(`${stub} ${field} points at ${pointed[field]}, which is not in the tarball`);
  }
}
for (const required of ['LICENSE', 'README.md', 'package.json']) {
  if (!files.has(required)) problems.push(`${required} is missing from the tarball${required === 'LICENSE' ? ' (cp LICENSE from the repository root)' : ''}`);
}
for (const file of files) {
  if (['LICENSE', 'README.md', 'package.json', 'CHANGELOG.md'].includes(file) || stubs.has(file)) continue;
  if (!file.startsWith('dist/')) problems.push(`${file} is outside dist/ (narrow package.json "files")`);
  else if (/\.test\.|\.tsbuildinfo$|(^|\/)test\//.test(file)) problems.push(`${file} is a test or build artefact`);
}
if (![...files].some((f) => f.endsWith('.d.ts'))) problems.push('no type declarations (.d.ts) in the tarball');

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

if (problems.length > 0) {
  console.error(`check-pack: ${manifest.name}:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-pack: ${manifest.name}: ${files.size} files, LICENSE, README.md, dist/ and ${targets.length} entry points, nothing else`);
