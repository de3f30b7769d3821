// Entry point of `pnpm bench` (after the root has built every package) and of
// `pnpm --filter @ratekeeper/benchmarks bench [section…] [--flag=value…]`.
//
// Sections are discovered, never listed here: every .mjs file directly in src/ (this one excepted) and
// every .mjs file in a direct subdirectory of src/ (src/http/, src/redis/, …) is a section, except the
// helpers in src/lib/ and files whose name starts with "_". A section's name is its path under src/
// without ".mjs" ("micro", "http/express"). Each exports `async function run(args)`, receives the
// flags of the command line (the `--…` arguments, verbatim) and prints its own table.
//
// With no section named, every section runs, top-level files first, each group in name order. A name
// selects the section of that name and every section under it ("http" runs all of src/http/).
// A section that throws is reported and the others still run; the exit code is then 1.
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SRC = fileURLToPath(new URL('.', import.meta.url));
const isSectionFile = (name) => name.endsWith('.mjs') && !name.startsWith('_');

/** discover lists the sections as { name, file }. */
function discover() {
  const top = [];
  const nested = [];
  for (const entry of readdirSync(SRC, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isFile() && isSectionFile(entry.name) && entry.name !== 'run-all.mjs') {
      top.push({ name: entry.name.slice(0, -4), file: `${SRC}${entry.name}` });
    } else if (entry.isDirectory() && entry.name !== 'lib' && !entry.name.startsWith('_')) {
      for (const file of readdirSync(`${SRC}${entry.name}`).filter(isSectionFile).sort()) {
        nested.push({ name: `${entry.name}/${file.slice(0, -4)}`, file: `${SRC}${entry.name}/${file}` });
      }
    }
  }
  return [...top, ...nested];
}

function select(sections, names) {
  if (names.length === 0) return sections;
  const chosen = sections.filter((s) => names.some((n) => s.name === n || s.name.startsWith(`${n}/`)));
  const unknown = names.filter((n) => !sections.some((s) => s.name === n || s.name.startsWith(`${n}/`)));
  if (unknown.length > 0) {
    throw new Error(`unknown section ${unknown.join(', ')}; sections: ${sections.map((s) => s.name).join(', ')}`);
  }
  return chosen;
}

async function main(argv) {
  const names = argv.filter((a) => !a.startsWith('--'));
  const args = argv.filter((a) => a.startsWith('--'));
  const sections = select(discover(), names);
  try {
    await import('@ratekeeper/core');
  } catch {
    throw new Error('@ratekeeper/core is not built: run `pnpm bench` at the repository root, which builds every package first');
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(`ratekeeper benchmarks — ${new Date().toISOString()} — Node ${process.version}, ${os.cpus().length} × ${cpu}, ${os.platform()} ${os.arch()}`);
  let failed = 0;
  for (const section of sections) {
    console.log(`\n== ${section.name} ${'='.repeat(Math.max(0, 96 - section.name.length))}\n`);
    try {
      const module = await import(pathToFileURL(section.file).href);
      if (typeof module.run !== 'function') throw new TypeError(`${section.file} exports no run(args) function`);
      await module.run(args);
    } catch (error) {
      failed++;
      console.error(`section ${section.name} failed: ${error?.stack ?? error}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2)).catch((error) => {
  console.error(error?.message ?? error);
  return 1;
});
