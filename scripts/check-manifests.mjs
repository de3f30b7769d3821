#!/usr/bin/env node
// Manifest checks for every published package (packages/*/ whose package.json is not private), run by
// `pnpm check` (scripts/check-packages.sh) and usable alone: node scripts/check-manifests.mjs
//   links  repository is { type: git, url, directory: packages/<dir> } with the url of the root
//          package.json's repository (the one place it is written); homepage is that repository's
//          tree/main/packages/<dir>#readme and bugs its /issues, so README links and the registry's
//          "Repository" and "Issues" buttons lead to the right folder; keywords is a non-empty list.
//   peers  every peer dependency but the workspace's own is one the tests run: a devDependency of
//          the same name whose installed version satisfies the peer range; the range is bounded
//          above (a new major is a claim nobody tested); and a peer the published files never
//          import by name (a duck-typed client the user passes in) is optional in peerDependenciesMeta,
//          as is every peer named there.
// Before checking the repository it checks itself on fixtures it writes to a temporary folder (one
// package right, one with each link wrong, one with each peer mistake): a checker that stopped
// catching them fails too. Exits 1 when anything failed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { selfTestOn } from './self-test.mjs';
import { bounded, satisfies } from './semver-range.mjs';

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** published lists the directory names under root/packages whose package.json is not private. */
function published(root) {
  return readdirSync(join(root, 'packages'))
    .filter((d) => existsSync(join(root, 'packages', d, 'package.json')) && readJson(join(root, 'packages', d, 'package.json')).private !== true)
    .sort();
}

/** linkProblems checks repository, homepage, bugs and keywords against the canonical repository URL. */
function* linkProblems(m, dir, url) {
  const web = url.replace(/^git\+/, '').replace(/\.git$/, '');
  const repository = { type: 'git', url, directory: `packages/${dir}` };
  if (JSON.stringify(m.repository) !== JSON.stringify(repository)) yield `repository is ${JSON.stringify(m.repository)}, want ${JSON.stringify(repository)}`;
  if (m.homepage !== `${web}/tree/main/packages/${dir}#readme`) yield `homepage is ${JSON.stringify(m.homepage)}, want "${web}/tree/main/packages/${dir}#readme"`;
  if (m.bugs !== `${web}/issues`) yield `bugs is ${JSON.stringify(m.bugs)}, want "${web}/issues"`;
  if (!Array.isArray(m.keywords) || m.keywords.length === 0 || !m.keywords.every((k) => typeof k === 'string' && k !== '')) yield 'keywords is missing or empty';
}

/** importedNames answers the bare specifiers the published files (dist/) import, require or re-export. */
function importedNames(pkgDir) {
  const names = new Set();
  const walk = (dir) => {
    for (const entry of existsSync(dir) ? readdirSync(dir) : []) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(entry)) {
        for (const [, spec] of readFileSync(path, 'utf8').matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)['"]([^'".][^'"]*)['"]/g)) {
          names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
        }
      }
    }
  };
  walk(join(pkgDir, 'dist'));
  return names;
}

/** peerProblems checks each non-workspace peer against the version the tests run and its optionality. */
function* peerProblems(m, pkgDir) {
  const peers = m.peerDependencies ?? {};
  const meta = m.peerDependenciesMeta ?? {};
  const imported = importedNames(pkgDir);
  for (const name of Object.keys(meta)) {
    if (!(name in peers)) yield `peerDependenciesMeta names ${name}, which is no peer dependency`;
    else if (meta[name]?.optional !== true) yield `peerDependenciesMeta.${name} is not { "optional": true }`;
  }
  for (const [name, range] of Object.entries(peers)) {
    if (range.startsWith('workspace:')) continue;
    if (!bounded(range)) yield `peer ${name}@${range} has no upper bound (write ^ or < the next major the tests have not run)`;
    const manifest = join(pkgDir, 'node_modules', name, 'package.json');
    if (m.devDependencies?.[name] === undefined) yield `peer ${name} is no devDependency, so no test runs it`;
    else if (!existsSync(manifest)) yield `peer ${name} is not installed (pnpm install)`;
    else if (!satisfies(readJson(manifest).version, range)) yield `peer ${name}@${range} excludes ${readJson(manifest).version}, the version the tests run`;
    if (!imported.has(name) && meta[name]?.optional !== true)
      yield `peer ${name} is never imported by dist/ (a client the user passes in), so it must be optional in peerDependenciesMeta`;
  }
}

/** check answers one line per problem of the published packages under root, and one summary line per peer. */
export function check(root) {
  const url = readJson(join(root, 'package.json')).repository?.url;
  if (typeof url !== 'string' || !/^git\+https:\/\/.+\.git$/.test(url))
    return { failures: ['the root package.json has no repository.url of the form git+https://….git'], peers: [] };
  const failures = [];
  const peers = [];
  for (const dir of published(root)) {
    const pkgDir = join(root, 'packages', dir);
    const m = readJson(join(pkgDir, 'package.json'));
    for (const p of [...linkProblems(m, dir, url), ...peerProblems(m, pkgDir)]) failures.push(`packages/${dir}: ${p}`);
    for (const [name, range] of Object.entries(m.peerDependencies ?? {})) {
      const installed = join(pkgDir, 'node_modules', name, 'package.json');
      if (!range.startsWith('workspace:') && existsSync(installed)) {
        peers.push(`${m.name}: ${name}@${range}, tests run ${readJson(installed).version}${m.peerDependenciesMeta?.[name]?.optional ? ', optional' : ''}`);
      }
    }
  }
  return { failures, peers };
}

/** selfTest runs the checks on fixtures with known defects and answers what the checker missed or added. */
export function selfTest() {
  const url = 'git+https://github.com/acme/kit.git';
  const links = (dir) => ({
    repository: { type: 'git', url, directory: `packages/${dir}` },
    homepage: `https://github.com/acme/kit/tree/main/packages/${dir}#readme`,
    bugs: 'https://github.com/acme/kit/issues',
    keywords: ['kit'],
  });
  return selfTestOn('check-manifests', (write, root) => {
    write('package.json', { name: 'kit', private: true, repository: { type: 'git', url } });
    write('packages/private/package.json', { name: '@kit/private', private: true });
    const clients = { peerDependencies: { '@kit/core': 'workspace:^', db: '^2.1.0' }, peerDependenciesMeta: { db: { optional: true } }, devDependencies: { db: '^2.1.0' } };
    write('packages/good/package.json', { name: '@kit/good', ...links('good'), ...clients });
    write('packages/good/node_modules/db/package.json', { name: 'db', version: '2.4.0' });
    write('packages/links/package.json', {
      name: '@kit/links',
      ...links('links'),
      repository: { type: 'git', url: 'git+https://github.com/acme/other.git', directory: 'packages/good' },
      homepage: 'https://github.com/acme/kit/tree/main/packages/good#readme',
      bugs: undefined,
      keywords: [],
    });
    write('packages/peers/package.json', {
      name: '@kit/peers',
      ...links('peers'),
      peerDependencies: { db: '>=2.0.0', cache: '^1.0.0', web: '^3.0.0 || ^4.0.0', untested: '^1.0.0' },
      peerDependenciesMeta: { web: { optional: false }, gone: { optional: true } },
      devDependencies: { db: '2.0.0', cache: '^1.0.0', web: '^4.0.0' },
    });
    write('packages/peers/node_modules/db/package.json', { version: '2.0.0' });
    write('packages/peers/node_modules/cache/package.json', { version: '2.0.0' });
    write('packages/peers/node_modules/web/package.json', { version: '4.2.0' });
    write('packages/peers/dist/index.js', "import { get } from 'cache/sync';\nexport * from 'web';\nconst db = require('db');\n");
    const { failures } = check(root);
    const expected = [
      'packages/links: repository is {"type":"git","url":"git+https://github.com/acme/other.git","directory":"packages/good"}, want {"type":"git","url":"git+https://github.com/acme/kit.git","directory":"packages/links"}',
      'packages/links: homepage is "https://github.com/acme/kit/tree/main/packages/good#readme", want "https://github.com/acme/kit/tree/main/packages/links#readme"',
      'packages/links: bugs is undefined, want "https://github.com/acme/kit/issues"',
      'packages/links: keywords is missing or empty',
      'packages/peers: peerDependenciesMeta.web is not { "optional": true }',
      'packages/peers: peerDependenciesMeta names gone, which is no peer dependency',
      'packages/peers: peer db@>=2.0.0 has no upper bound (write ^ or < the next major the tests have not run)',
      'packages/peers: peer cache@^1.0.0 excludes 2.0.0, the version the tests run',
      'packages/peers: peer untested is no devDependency, so no test runs it',
      'packages/peers: peer untested is never imported by dist/ (a client the user passes in), so it must be optional in peerDependenciesMeta',
    ];
    return { expected, failures };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const { failures, peers } = check(root);
  const all = [...selfTest(), ...failures];
  for (const f of all) console.error(f);
  if (all.length > 0) process.exit(1);
  console.log(`check-manifests: ${published(root).length} published packages link to ${readJson(join(root, 'package.json')).repository.url} and have keywords; peers:`);
  for (const p of peers) console.log(`  ${p}`);
}
