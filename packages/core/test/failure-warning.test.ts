/**
 * The one-time failure warning every store with a failure policy gives (core's store kit): a store
 * that decides without its server says so once per process for each cause, naming the cause, what
 * decides instead, how to see every failure and how to silence it (`failureWarning: false`, or a
 * 'failure' listener); a remote store's causes are named from the failure and whether its server ever
 * answered (remoteFailureCause). The stores show it end to end on their real servers (postgres, mysql,
 * sqlite, durable-object: failure-warning.test.ts in each).
 */
import { describe, expect, it } from 'vitest';
import { type FailureInfo, failureWarner, failureWarningOption, forgetFailureWarnings, remoteFailureCause, resolveFailureOptions, warnFailureOnce } from '../src/store/index.js';
import { failureWarningText } from '../src/store/remote/failure-warning.js';
import { warningsOnProcess } from '../../store-contract/src/index.js';

const PG = { code: 'POSTGRES', name: 'PostgreSQL', client: 'pool' } as const;
const info = (reason: FailureInfo['reason'], code?: string): FailureInfo =>
  code === undefined ? { operation: 'consume', policy: 'p', reason } : { operation: 'consume', policy: 'p', reason, error: Object.assign(new Error('secret text'), { code }) };

const { ours, settle } = warningsOnProcess(forgetFailureWarnings);

describe('remoteFailureCause', () => {
  it.each([
    [
      'refused, never answered',
      info('connection', 'ECONNREFUSED'),
      false,
      'RATEKEEPER_POSTGRES_NOT_CONNECTED',
      'the pool never connected to PostgreSQL: the connection was refused (ECONNREFUSED)',
    ],
    ['unknown host, never answered', info('connection', 'ENOTFOUND'), false, 'RATEKEEPER_POSTGRES_NOT_CONNECTED', 'the host name did not resolve (ENOTFOUND)'],
    ['connect timeout, never answered', info('connection', 'CONNECT_TIMEOUT'), false, 'RATEKEEPER_POSTGRES_NOT_CONNECTED', 'connecting timed out (CONNECT_TIMEOUT)'],
    ['silence, never answered', info('timeout'), false, 'RATEKEEPER_POSTGRES_NOT_CONNECTED', 'PostgreSQL has never answered this store: nothing for 1000 ms (timeoutMs)'],
    ['refused after answering', info('connection', 'ECONNREFUSED'), true, 'RATEKEEPER_POSTGRES_REFUSED', 'PostgreSQL refused the connection (ECONNREFUSED)'],
    ['lost after answering', info('connection', 'ECONNRESET'), true, 'RATEKEEPER_POSTGRES_CONNECTION', 'the connection to PostgreSQL was lost or could not be made (ECONNRESET)'],
    ['silence after answering', info('timeout'), true, 'RATEKEEPER_POSTGRES_TIMEOUT', 'PostgreSQL answered nothing for 1000 ms (timeoutMs)'],
    ['an error reply', info('reply', '28P01'), true, 'RATEKEEPER_POSTGRES_REPLY', 'PostgreSQL answered with an error (28P01)'],
  ])('%s', (_label, failure, heard, code, text) => {
    const cause = remoteFailureCause(PG, failure, 1000, heard);
    expect(cause?.code).toBe(code);
    expect(cause?.text).toContain(text);
    expect(cause?.text).not.toContain('secret text');
  });

  it("names nothing for 'unavailable': it only follows a failure already told", () => {
    expect(remoteFailureCause(PG, info('unavailable'), 1000, true)).toBeUndefined();
    expect(remoteFailureCause(PG, info('unavailable'), 1000, false)).toBeUndefined();
  });
});

describe('failureWarner', () => {
  const source = (over: { enabled?: boolean; listening?: boolean; onFailure?: 'fallback' | 'open' | 'closed' } = {}) => ({
    owner: 'PostgresStore',
    server: 'PostgreSQL',
    onFailure: over.onFailure ?? ('fallback' as const),
    enabled: over.enabled ?? true,
    listening: () => over.listening ?? false,
    causeOf: (i: FailureInfo) => remoteFailureCause(PG, i, 1000, true),
  });

  it('warns once per process per cause, however many failures and stores', async () => {
    const one = failureWarner(source());
    const two = failureWarner(source());
    for (let i = 0; i < 5; i++) {
      one(info('timeout'));
      two(info('timeout'));
      one(info('unavailable'));
    }
    two(info('reply', '42501'));
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_POSTGRES_TIMEOUT', 'RATEKEEPER_POSTGRES_REPLY']);
    expect(ours()[0]?.message).toBe(
      "PostgresStore: PostgreSQL could not decide, so this process decides alone with onFailure: 'fallback' (an in-process limit, its share of the limit per process): PostgreSQL answered nothing for 1000 ms (timeoutMs). To see every failure, listen with store.on('failure', (info) => …), which also silences this warning; or pass failureWarning: false.",
    );
  });

  it("is silent with failureWarning: false, and while a 'failure' listener is attached", async () => {
    failureWarner(source({ enabled: false }))(info('timeout'));
    failureWarner(source({ listening: true }))(info('timeout'));
    await settle();
    expect(ours()).toEqual([]);
  });

  it('names what decides under each policy', () => {
    const cause = { code: 'C', text: 'why' };
    expect(failureWarningText('S', 'X', 'open', cause)).toContain("so every request is admitted (onFailure: 'open'): why.");
    expect(failureWarningText('S', 'X', 'closed', cause)).toContain("so every request is denied, 503 (onFailure: 'closed'): why.");
  });

  it('never throws, even when naming the cause does', async () => {
    const broken = failureWarner({
      ...source(),
      causeOf: () => {
        throw new Error('bug');
      },
    });
    expect(() => broken(info('timeout'))).not.toThrow();
    await settle();
    expect(ours()).toEqual([]);
  });

  it('shares its record with another copy of core in the process (the global symbol)', async () => {
    warnFailureOnce('RATEKEEPER_TEST_SHARED', 'once');
    (globalThis as unknown as Record<symbol, Set<string>>)[Symbol.for('ratekeeper.failureWarnings')]?.add('RATEKEEPER_TEST_OTHER_COPY');
    warnFailureOnce('RATEKEEPER_TEST_OTHER_COPY', 'told by the other copy already');
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_TEST_SHARED']);
  });
});

describe('the failureWarning option', () => {
  it('defaults to true, and is refused when not a boolean, naming the store', () => {
    expect(failureWarningOption('SqliteStore', undefined)).toBe(true);
    expect(failureWarningOption('SqliteStore', false)).toBe(false);
    expect(() => failureWarningOption('SqliteStore', 'no')).toThrowError(new TypeError('SqliteStore: failureWarning must be a boolean, got "no"'));
    expect(resolveFailureOptions('PostgresStore', {}).failureWarning).toBe(true);
    expect(() => resolveFailureOptions('PostgresStore', { failureWarning: 0 })).toThrowError(new RangeError('PostgresStore: failureWarning must be a boolean, got 0'));
  });
});
