/**
 * A process deciding on one file, run by test/moved-file.test.ts: a SqliteStore of DEFAULT options on
 * the path given, no 'failure' listener (so its failures warn), and one fixed window of 10 an hour on a
 * clock that stands still. On each message `{ n }` it consumes n times on one key and answers how many
 * were admitted, each decision's failure mark, and the codes of the RatekeeperWarnings seen so far.
 * Arguments: the build URL, the database path.
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';

const [dist, path] = process.argv.slice(2);
const { SqliteStore } = await import(dist);
const store = new SqliteStore({ path });
const limiter = new FixedWindowLimiter({ limit: 10, windowMs: 3_600_000, store, clock: new ManualClock(1_700_000_000_000), name: 'moved' });
const warnings = [];
process.on('warning', (warning) => warning.name === 'RatekeeperWarning' && warnings.push(warning.code));

process.on('message', ({ n }) => {
  const decisions = Array.from({ length: n }, () => limiter.consume('k'));
  // A warning is emitted on the next tick: answer after it.
  setImmediate(() => process.send({ admitted: decisions.filter((d) => d.allowed).length, failures: decisions.map((d) => d.failure ?? null), warnings }));
});
process.on('disconnect', () => process.exit(0));
process.send('ready');
