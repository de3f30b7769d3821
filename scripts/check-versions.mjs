#!/usr/bin/env node
/**
 * One version for every published package: each packages/* whose package.json is not private has the
 * same `version`, none of them 0.0.0 (npm would save `^0.0.0`, a range that never updates), and
 * .changeset/config.json's `fixed` holds them as one group, so `changeset version` moves them together.
 * Exits 1 naming each package that differs. Run by scripts/check-packages.sh.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const published = readdirSync(join(root, 'packages'))
  .map((dir) => join(root, 'packages', dir, 'package.json'))
  .filter((file) => existsSync(file))
  .map((file) => JSON.parse(readFileSync(file, 'utf8')))
  .filter((manifest) => manifest.private !== true);

const problems = [];
const versions = new Map();
for (const { name, version } of published) versions.set(version, [...(versions.get(version) ?? []), name]);
if (versions.size > 1) {
  const [common] = [...versions.entries()].sort((a, b) => b[1].length - a[1].length)[0];
  for (const [version, names] of versions) if (version !== common) problems.push(`${names.join(', ')}: version ${version}, the others ${common}`);
}
for (const { name, version } of published) if (version === '0.0.0') problems.push(`${name}: version 0.0.0 (npm would save ^0.0.0, which never updates)`);

const config = JSON.parse(readFileSync(join(root, '.changeset', 'config.json'), 'utf8'));
const groups = (config.fixed ?? []).filter((group) => group.some((name) => published.some((p) => p.name === name)));
const names = published.map((p) => p.name).sort();
if (groups.length !== 1 || JSON.stringify([...groups[0]].sort()) !== JSON.stringify(names)) {
  problems.push(`.changeset/config.json: "fixed" must hold every published package as one group: ${JSON.stringify(names)}`);
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-versions: ${problem}`);
  process.exit(1);
}
console.log(`check-versions: ${published.length} published packages at ${published[0]?.version}, one fixed changesets group`);
