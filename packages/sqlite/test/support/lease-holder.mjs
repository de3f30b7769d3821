/**
 * A process that takes leases and then hangs, run by test/leases.test.ts to be killed with SIGKILL:
 * it acquires LIMIT leases of key 'crashed' (and one of 'elsewhere') at the instant given, on a clock
 * that stands still there, writes the marker file, and waits forever (its renewal timer is unref'd:
 * an interval of its own keeps it alive). Arguments: the build URL, the database path, the marker
 * path, the instant.
 */
import { writeFileSync } from 'node:fs';
import { ConcurrencyLimiter } from '@ratekeeper/core';

const [dist, path, marker, at] = process.argv.slice(2);
const { SqliteStore } = await import(dist);
const store = new SqliteStore({ path });
const clock = { now: () => Number(at) };
const limiter = new ConcurrencyLimiter({ limit: 3, store, clock, name: 'leases' });
const taken = [limiter.consume('crashed'), limiter.consume('crashed'), limiter.consume('crashed'), limiter.consume('elsewhere')].filter((d) => d.allowed).length;
writeFileSync(marker, String(taken));
setInterval(() => {}, 1000);
