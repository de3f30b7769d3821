/**
 * Run by test/failure.test.ts without the capabilities that let root ignore file modes: checks that it
 * may not create a file in the directory (the premise), decides on a store whose file is in that
 * directory, and prints the premise, the decisions and the failure reasons as JSON.
 * Arguments: the build URL, the database path.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';

const [dist, path] = process.argv.slice(2);
const { SqliteStore } = await import(dist);
/** Whether this process really may not write the directory (the test's premise), checked by trying. */
let premise = 'denied';
try {
  writeFileSync(join(dirname(path), 'premise-probe'), '');
  premise = 'allowed';
} catch {}
const store = new SqliteStore({ path });
const reasons = [];
store.on('failure', (info) => reasons.push(info.reason));
const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store, clock: new ManualClock(0) });
const decisions = [limiter.consume('k'), limiter.consume('k'), limiter.consume('k')].map((d) => ({ allowed: d.allowed, failure: d.failure }));
process.stdout.write(JSON.stringify({ premise, decisions, reasons }));
