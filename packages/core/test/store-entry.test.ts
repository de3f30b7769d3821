/**
 * `@ratekeeper/core/store`, the store authors' entry point, is deliberate too: the exact list of value
 * names it exports, the built package answering the same names to `require()` from a CommonJS file
 * and to `import` from an ES module, each in a child Node process, and every name the root entry marks
 * deprecated for it (the steps' helpers stores use, still re-exported for one minor version) present
 * here as the very same value.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';
import * as entry from '../src/store/index.js';
import { deprecatedAtRoot } from './support/deprecated.js';

const VALUES = [
  'BEAT_MS',
  'CANCELLABLE_BOOKINGS',
  'CLOSED_RETRY_AFTER_MS',
  'DEFAULT_CONCURRENCY_LEASE_TTL_MS',
  'DEFAULT_PROBE_INTERVAL_MS',
  'DEFAULT_TIMEOUT_MS',
  'FAILURE_OPTIONS',
  'Failure',
  'Fallback',
  'LeaseHolder',
  'MemoryBinding',
  'MAX_WAIT_FACTOR',
  'MEMBER_TTL_MS',
  'Peers',
  'Remote',
  'ServerClock',
  'TIMEOUT',
  'UNAVAILABLE',
  'bannedDecision',
  'cancelBooking',
  'closedDecision',
  'concurrency',
  'decideByPolicy',
  'describeValue',
  'failureInfo',
  'failureWarner',
  'failureWarningOption',
  'fixedWindow',
  'fallbackDecision',
  'fallbackPolicy',
  'forgetFailureWarnings',
  'latestBooked',
  'leaseExpiry',
  'leaseTtlOption',
  'leaseView',
  'ledgerFrom',
  'ledgerNumbers',
  'openDecision',
  'optionFail',
  'peerId',
  'refuseUnknown',
  'remoteFailureCause',
  'releaseLeases',
  'renewLeases',
  'slidingLog',
  'slidingWindow',
  'resolveFailureOptions',
  'stepOutput',
  'takeLeases',
  'toDecision',
  'tokenBucket',
  'unreachable',
  'warnFailureOnce',
];

/** The root entry's names marked @deprecated for this entry; they leave the root in the next minor version. */
const DEPRECATED_AT_ROOT = ['MemoryBinding', 'fixedWindow', 'slidingWindow', 'stepOutput', 'toDecision', 'tokenBucket'];

const names = (code: string, type: 'commonjs' | 'module') =>
  JSON.parse(execFileSync(process.execPath, ['--input-type', type, '-e', code], { cwd: new URL('..', import.meta.url), encoding: 'utf8' })) as string[];

describe('@ratekeeper/core/store', () => {
  it('exports exactly the listed values', () => {
    expect(Object.keys(entry).sort()).toEqual([...VALUES].sort());
  });

  it('is where every name the root entry marks @deprecated for it went (read from src/index.ts), as the very same value', () => {
    expect(deprecatedAtRoot('@ratekeeper/core/store')).toEqual(DEPRECATED_AT_ROOT);
    for (const name of DEPRECATED_AT_ROOT) expect([name, (entry as Record<string, unknown>)[name]]).toEqual([name, (root as Record<string, unknown>)[name]]);
  });

  it('answers the same names to require() and to import from the built package', { timeout: 30_000 }, () => {
    const required = names("process.stdout.write(JSON.stringify(Object.keys(require('@ratekeeper/core/store')).sort()))", 'commonjs');
    const imported = names("import('@ratekeeper/core/store').then((m) => process.stdout.write(JSON.stringify(Object.keys(m).sort())))", 'module');
    expect(required).toEqual([...VALUES].sort());
    expect(imported).toEqual([...VALUES].sort());
  });
});
