#!/usr/bin/env node
/**
 * Each published package's README stands on its own on the registry's page, where nothing else of the
 * repository is shipped: it links to MIGRATING.md by its absolute GitHub address (the root
 * package.json's repository, `/blob/main/MIGRATING.md`), its Install section names the package and
 * every peer dependency that is not optional, and a Usage section holds a code block (the quick start).
 * Exits 1 naming each README and what it lacks. Run by scripts/check-packages.sh.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const repository = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  .repository.url.replace(/^git\+/, '')
  .replace(/\.git$/, '');
const migrating = `${repository}/blob/main/MIGRATING.md`;

/** section is the text under `## heading` up to the next `## `, or undefined. */
function section(text, heading) {
  const start = text.search(new RegExp(`^## ${heading}\\b`, 'm'));
  if (start < 0) return undefined;
  const rest = text.slice(start + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

const problems = [];
let count = 0;
for (const dir of readdirSync(join(root, 'packages'))) {
  const manifestFile = join(root, 'packages', dir, 'package.json');
  if (!existsSync(manifestFile)) continue;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  if (manifest.private === true) continue;
  count++;
  const where = `packages/${dir}/README.md`;
  const readmeFile = join(root, 'packages', dir, 'README.md');
  if (!existsSync(readmeFile)) {
    problems.push(`${where}: missing`);
    continue;
  }
  const text = readFileSync(readmeFile, 'utf8');
  if (!text.includes(`](${migrating}`)) problems.push(`${where}: no link to ${migrating}`);
  const install = section(text, 'Install');
  if (install === undefined) problems.push(`${where}: no "## Install" section`);
  else {
    const optional = manifest.peerDependenciesMeta ?? {};
    const needed = [manifest.name, ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => optional[name]?.optional !== true)];
    for (const name of needed) if (!install.includes(name)) problems.push(`${where}: the Install section does not name ${name}`);
  }
  const usage = section(text, 'Usage');
  if (usage === undefined || !/```(?:js|ts|javascript|typescript|mjs|cjs)\b/.test(usage)) problems.push(`${where}: no "## Usage" section with a code block (the quick start)`);
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-readmes: ${problem}`);
  process.exit(1);
}
console.log(`check-readmes: ${count} published READMEs link to MIGRATING.md, name their peers and start quickly`);
