/**
 * Mutant builds, for every store package's tests: deliberately broken variants of a store, each the
 * package's own TypeScript source with a few exact edits, transpiled (./transpile.ts) into the package's
 * .builds/<pid>/<name>/ (ignored by git), so that a test, or a worker process, loads it as it loads dist.
 * Each process builds into a directory of its own (`buildRoot`): test files run in parallel workers,
 * and packages side by side (the fetch and Hono suites build Redis's mutants), so two processes
 * building one mutant in one place would delete each other's files midway.
 * An edit may also break core (`['core', file, from, to]`: the row-store kit every store runs on, the
 * Remote that bounds its calls): a mutant core is then built beside the package's, in the build's
 * node_modules, and the mutant package resolves it instead of the workspace's. Every edit must match
 * its source exactly once: a mutant whose edit no longer applies fails loudly instead of silently
 * testing the unbroken store. Each package keeps its own table of mutants and calls mutantBuilder with it.
 */
import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transpileTree } from './transpile.js';

/** Edit: in `file` (under the package's src/, or core's with 'core' first), the one occurrence of `from` becomes `to`. */
export type Edit = readonly [file: string, from: string, to: string] | readonly [pkg: 'core', file: string, from: string, to: string];

/**
 * KIT_MUTANTS: breaks of core's row-store kit that every row store's tests can name, the same edits on
 * every store: leases that never expire, a renewal that changes nothing, a booking that does not keep
 * its ledger, a cancel that gives back at or after the booked instant.
 */
export const KIT_MUTANTS = {
  'leases-never-expire': [
    [
      'core',
      'store/rows/apply.ts',
      'return part.lease === undefined ? state : leaseView(state, at);',
      'return part.lease === undefined ? state : leaseView(state, Number.NEGATIVE_INFINITY);',
    ],
  ],
  'renew-ignored': [['core', 'store/rows/apply.ts', '        writeRow(rows, part.id, renewed.state, renewed.expiresAt, PINNED);\n', '']],
  'ledger-unsaved': [['core', 'store/rows/book.ts', '    writeRow(rows, ledgerId, Float64Array.from(ledgerNumbers(ledger)), latestBooked(ledger));\n', '']],
  'cancel-after-instant': [
    [
      'core',
      'store/rows/book.ts',
      'if (!cancelBooking(scratches.bindings, KEY, entry, at)) return false;',
      'if (!cancelBooking(scratches.bindings, KEY, entry, Number.NEGATIVE_INFINITY)) return false;',
    ],
  ],
} satisfies Record<string, readonly Edit[]>;

/**
 * SQL_KIT_MUTANTS: breaks of core's SqlTransactor, the same edits on every SQL store (PostgreSQL,
 * MySQL): a connection that died while being made fails the batch instead of being made again; a
 * statement on a connection the server forgot is waited for as any other (no suspicion after another
 * connection died or a ping was answered: see forgottenConnection).
 */
export const SQL_KIT_MUTANTS = {
  'connect-dies-fails': [['core', 'store/rows/sql-transactor.ts', "      if (this.#kind(error) === 'lost') return RERUN;\n", '']],
  'forgotten-waited': [
    ['core', 'store/rows/sql-transactor.ts', "    if (kind === 'lost') this.#suspect(this.#inFlight);\n", ''],
    ['core', 'store/rows/sql-transactor.ts', '      this.#suspect(before);\n', ''],
  ],
} satisfies Record<string, readonly Edit[]>;

const pruned = new Set<string>();

/** running tells whether process `pid` is alive (a process of another user counts as alive). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * buildRoot is where this process builds mutant `name` of the package at `packageDir`:
 * .builds/<pid>/<name>, emptied first. The first call in a process removes the builds of processes
 * that have ended.
 */
export function buildRoot(packageDir: string, name: string): string {
  const builds = join(packageDir, '.builds');
  if (!pruned.has(builds)) {
    pruned.add(builds);
    let entries: string[] = [];
    try {
      entries = readdirSync(builds);
    } catch {
      // No builds yet.
    }
    for (const entry of entries) if (/^\d+$/.test(entry) && Number(entry) !== process.pid && !running(Number(entry))) rmSync(join(builds, entry), { recursive: true, force: true });
  }
  const root = join(builds, String(process.pid), name);
  rmSync(root, { recursive: true, force: true });
  return root;
}

/**
 * mutantBuilder answers the build function of the package at `packageDir` over its `mutants`: it
 * compiles the named mutant (once per process) and answers the URL of its index.js.
 */
export function mutantBuilder<Name extends string>(packageDir: string, mutants: Readonly<Record<Name, readonly Edit[]>>): (name: Name) => string {
  const built = new Map<Name, string>();
  const require = createRequire(join(packageDir, 'package.json'));
  return (name) => {
    const known = built.get(name);
    if (known !== undefined) return known;
    const root = buildRoot(packageDir, name);
    const edits = mutants[name];
    const own = edits.filter((e) => e.length === 3) as readonly (readonly [string, string, string])[];
    const core = edits.filter((e) => e.length === 4).map((e) => e.slice(1) as unknown as readonly [string, string, string]);
    if (core.length > 0) {
      const coreDir = dirname(require.resolve('@ratekeeper/core/package.json'));
      const mutantCore = join(root, 'node_modules', '@ratekeeper', 'core');
      copyEdited(coreDir, mutantCore, core, name);
      cpSync(join(coreDir, 'package.json'), join(mutantCore, 'package.json'));
      transpileTree(require, mutantCore, 'dist/esm');
    }
    copyEdited(packageDir, root, own, name);
    transpileTree(require, root, 'dist');
    const url = pathToFileURL(join(root, 'dist', 'index.js')).href;
    built.set(name, url);
    return url;
  };
}

/** copyEdited copies `from`'s src (tests left out) into `to`/src and applies `edits`, each exactly once. */
function copyEdited(from: string, to: string, edits: readonly (readonly [string, string, string])[], name: string): void {
  cpSync(join(from, 'src'), join(to, 'src'), { recursive: true, filter: (path) => !path.endsWith('.test.ts') });
  for (const [file, before, after] of edits) {
    const path = join(to, 'src', file);
    const source = readFileSync(path, 'utf8');
    const found = source.split(before).length - 1;
    if (found !== 1) throw new Error(`mutant ${name}: expected one "${before.trim()}" in ${file}, found ${found}`);
    writeFileSync(path, source.replace(before, after));
  }
}
