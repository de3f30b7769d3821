/**
 * The same suites on Bun: `bun test` runs this package's test files as they are (Bun's runner takes
 * the `vitest` imports), with bun:sqlite as the driver (the burst checks its workers used it): the
 * store contract suite (its differential and its 8-process burst with their mutants included), the
 * lease-and-rate composite, bookings and leases from several connections, SIGKILL mid-transaction,
 * lease expiry after SIGKILL, failures, bounds, the rows' indexed columns and a file deleted or moved
 * under a process. Every test must pass and the count must be the full one. Bun comes from npm (the
 * `bun` devDependency); a missing binary skips this file with a warning on a developer machine and
 * fails it in CI. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bunBinary } from './support/bun.js';

const SUITES = ['store-contract', 'capabilities', 'bookings', 'crash', 'leases', 'failure', 'bounds', 'index-columns', 'moved-file'].map((name) => `test/${name}.test.ts`);
/** The tests those files hold (a suite that silently ran fewer would not be the same suite). */
const TESTS = 177 + 3 + 8 + 2 + 11 + 9 + 7 + 7 + 4;
const bun = bunBinary();
const inCI = process.env['CI'] === 'true';
if (bun === undefined && !inCI) console.warn('\n*** Bun not found: the Bun suites are SKIPPED. Run pnpm install (it comes from npm); CI fails instead. ***\n');

(bun !== undefined || inCI ? describe : describe.skip)('the suites on Bun', () => {
  it(`pass there, all ${TESTS} of them`, () => {
    if (bun === undefined) throw new Error('Bun is missing (the `bun` devDependency); CI must have it');
    const run = spawnSync(bun, ['test', '--timeout', '120000', ...SUITES], { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8', timeout: 1_500_000 });
    const output = `${run.stdout}${run.stderr}`;
    const passed = Number(/(\d+) pass/.exec(output)?.[1] ?? -1);
    const failed = Number(/(\d+) fail/.exec(output)?.[1] ?? -1);
    // The first failure's own report (Bun prints it where it happened, long before the summary), then the summary.
    const first = output.search(/^\(fail\)|^error:/m);
    const shown = `${first < 0 ? '' : `${output.slice(Math.max(0, first - 3000), first + 500)}\n…\n`}${output.slice(-1500)}`;
    expect({ status: run.status, passed, failed }, shown).toEqual({ status: 0, passed: TESTS, failed: 0 });
  }, 1_600_000);
});
