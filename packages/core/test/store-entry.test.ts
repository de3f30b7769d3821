/**
 * `@ratekeeper/core/store`, the store authors' entry point, is deliberate too: the exact list of value
 * names it exports, the Store contract's types (the root's own), and the built package answering the
 * same names to `require()` from a CommonJS file and to `import` from an ES module, each in a child
 * Node process.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as root from '../src/index.js';
import * as entry from '../src/store/index.js';

const VALUES = [
  'BEAT_MS',
  'BatchRunner',
  'CANCELLABLE_BOOKINGS',
  'CLOSED_RETRY_AFTER_MS',
  'COMMITTED',
  'DEFAULT_CONCURRENCY_LEASE_TTL_MS',
  'DEFAULT_PROBE_INTERVAL_MS',
  'DEFAULT_TIMEOUT_MS',
  'EXPIRED_GRACE_MS',
  'Expired',
  'FAILURE_OPTIONS',
  'Failure',
  'FailureEvents',
  'Fallback',
  'Housekeeping',
  'MAX_MEMBERS',
  'MAX_OWED',
  'MAX_RAW_KEY_LENGTH',
  'MAX_WAIT_FACTOR',
  'MEMBER_TTL_MS',
  'MemoryBinding',
  'Owed',
  'PINNED',
  'Peers',
  'PolicyNames',
  'Remote',
  'RowBinding',
  'RowEngine',
  'RowLeases',
  'RowStore',
  'SWEEP_EVERY_MS',
  'SWEEP_LIMIT',
  'ServerClock',
  'SqlTransactor',
  'SyncRunner',
  'TIMEOUT',
  'UNAVAILABLE',
  'applyOp',
  'closedDecision',
  'concurrency',
  'decideByPolicy',
  'describeValue',
  'emptyRow',
  'expiredAt',
  'failureInfo',
  'failureWarner',
  'failureWarningOption',
  'fallbackDecision',
  'fallbackPolicy',
  'firstRequestWindow',
  'fixedWindow',
  'forgetFailureWarnings',
  'leaseTtlOption',
  'nameHead',
  'openDecision',
  'optionFail',
  'peerId',
  'refsOf',
  'refuseUnknown',
  'remoteFailureCause',
  'resolveFailureOptions',
  'rowId',
  'slidingLog',
  'slidingWindow',
  'sqlFailureOf',
  'stepOutput',
  'toDecision',
  'toUsage',
  'tokenBucket',
  'unreachable',
  'usageOutput',
  'warnFailureOnce',
];

const names = (code: string, type: 'commonjs' | 'module') =>
  JSON.parse(execFileSync(process.execPath, ['--input-type', type, '-e', code], { cwd: new URL('..', import.meta.url), encoding: 'utf8' })) as string[];

describe('@ratekeeper/core/store', () => {
  it('exports exactly the listed values', () => {
    expect(Object.keys(entry).sort()).toEqual([...VALUES].sort());
  });

  it("exports the Store contract's types, the very ones the root exports", () => {
    expectTypeOf<entry.Store<'async'>>().toEqualTypeOf<root.Store<'async'>>();
    expectTypeOf<entry.StoreBinding<'sync'>>().toEqualTypeOf<root.StoreBinding<'sync'>>();
    expectTypeOf<entry.Booking>().toEqualTypeOf<root.Booking>();
    expectTypeOf<entry.Result<'async', number>>().toEqualTypeOf<root.Result<'async', number>>();
    expectTypeOf<entry.Mode>().toEqualTypeOf<root.Mode>();
  });

  it('answers the same names to require() and to import from the built package', { timeout: 30_000 }, () => {
    const required = names("process.stdout.write(JSON.stringify(Object.keys(require('@ratekeeper/core/store')).sort()))", 'commonjs');
    const imported = names("import('@ratekeeper/core/store').then((m) => process.stdout.write(JSON.stringify(Object.keys(m).sort())))", 'module');
    expect(required).toEqual([...VALUES].sort());
    expect(imported).toEqual([...VALUES].sort());
  });
});
