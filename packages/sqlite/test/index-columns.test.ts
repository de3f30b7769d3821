/**
 * A row's indexed columns are kept loosely (src/rows.ts), so that most writes change the state alone:
 * - never before the state's empty instant: expires_at ≥ emptyAt after every step of every history,
 *   so no live row is deleted as expired (nor is empty_at, not indexed: the kit's expiry of the row,
 *   which the bounds below are taken from);
 * - a write that keeps them keeps them only within their bounds: expires_at ≤ emptyAt + max(60 s, 25 %
 *   of the time left) and the fill within 1/16 of the state's (at least 1 for a full state); a write
 *   that rewrites them writes exactly emptyAt + half that slack and the state's fill.
 * Random histories (fast-check) on each algorithm, the row read from the file after each step; and a
 * busy key's columns, counted: rewritten by 18 of its 599 writes (each of them before they were kept
 * loosely, 58 with a slack of at least 1 s rather than 60 s). A mutant that keeps an expiry past the empty instant ('index-kept-past-empty')
 * fails the property, and in a plain scenario it deletes a live key as expired, which then admits
 * again what it had used.
 */
import { ManualClock, MemoryStore, type Policy, type Store } from '@ratekeeper/core';
import { firstRequestWindow, fixedWindow, slidingLog, slidingWindow, tokenBucket } from '@ratekeeper/core/store';
import { ALGORITHMS, Instants, type Spec, makeLimiter, specs, startInstant, steps } from '@ratekeeper/store-contract';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDriver } from '../src/driver.js';
import { EXPIRED_GRACE_MS, SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';
import { mutantBuild } from './support/mutant-builds.js';

const dir = tempDir();
afterAll(() => dir.remove());

/** algorithmOf is the core algorithm that decides `spec` (a sliding log's is made for its limit). */
function algorithmOf(spec: Spec): typeof tokenBucket {
  const algorithm =
    spec.algorithm === 'sliding-log'
      ? slidingLog(spec.limit)
      : { 'token-bucket': tokenBucket, 'sliding-window': slidingWindow, 'fixed-window': fixedWindow, 'first-request-window': firstRequestWindow }[spec.algorithm];
  return algorithm as unknown as typeof tokenBucket;
}

interface Row {
  readonly state: Uint8Array;
  readonly empty_at: number;
  readonly expires_at: number;
  readonly fill: number;
}

/** decodeState reads a stored state: its doubles, little-endian. */
function decodeState(bytes: Uint8Array): Float64Array {
  return new Float64Array(Uint8Array.from(bytes).buffer);
}

/** replay runs `history` on one key of a fresh file and checks the row after each step (see above). */
function replay(Store: typeof SqliteStore, spec: Spec, start: number, history: ReturnType<typeof steps> extends fc.Arbitrary<infer H> ? H : never): void {
  const path = dir.file();
  const store = new Store({ path });
  const clock = new ManualClock(start);
  const limiter = makeLimiter(spec, store, clock, 'p');
  const algorithm = algorithmOf(spec);
  const policy = limiter.policy as Policy as Parameters<typeof tokenBucket.emptyAt>[0];
  const db = loadDriver('test', 'auto').open(path);
  // The store creates its tables at its first decision.
  let read: ReturnType<typeof db.prepare> | undefined;
  const instants = new Instants(start, EXPIRED_GRACE_MS);
  let before: Row | undefined;
  try {
    for (const [i, step] of history.entries()) {
      clock.set(instants.next(step.dt));
      const at = clock.now();
      if (step.op === 'reset' || step.op === 'refund') limiter[step.op]?.('k', step.cost);
      else limiter[step.op]('k', step.cost);
      read ??= db.prepare('SELECT state, empty_at, expires_at, fill FROM rk_rows');
      const row = read.get() as Row | undefined;
      const where = `step ${i} (${step.op} cost ${step.cost} at ${at})`;
      if (row !== undefined) {
        const state = decodeState(row.state);
        // The kit's expiry of the row (stored as empty_at) is never before the algorithm's empty instant, nor expires_at before either.
        const emptyAt = row.empty_at;
        expect(emptyAt, `${where}: empty_at before the algorithm's empty instant`).toBeGreaterThanOrEqual(algorithm.emptyAt(policy, state, 0));
        expect(row.expires_at, `${where}: expires_at before the empty instant`).toBeGreaterThanOrEqual(emptyAt);
        const written = before === undefined || !Buffer.from(before.state).equals(Buffer.from(row.state));
        if (written) {
          const fill = algorithm.fill(policy, state, 0, at);
          const slack = Math.max(60_000, 0.25 * (emptyAt - at));
          const kept = before !== undefined && before.expires_at === row.expires_at && before.fill === row.fill;
          if (kept) {
            expect(row.expires_at, `${where}: kept expires_at past the slack`).toBeLessThanOrEqual(emptyAt + slack);
            expect(row.fill, `${where}: kept a fill 1/16 or more above`).toBeLessThan(fill + 1 / 16);
            expect(row.fill, `${where}: kept a fill more than 1/16 below, or below 1 for a full state`).toBeGreaterThanOrEqual(fill >= 1 ? 1 : fill - 1 / 16);
          } else {
            expect([row.expires_at, row.fill], `${where}: rewritten columns`).toEqual([emptyAt + slack / 2, fill]);
          }
        }
      }
      before = row;
    }
  } finally {
    db.close();
    store.close();
  }
}

function property(Store: typeof SqliteStore, algorithm: (typeof ALGORITHMS)[number]) {
  return fc.property(
    specs[algorithm].chain((spec) => fc.tuple(fc.constant(spec as Spec), startInstant, steps([spec as Spec], 1))),
    ([spec, start, history]) => replay(Store, spec, start, history),
  );
}

describe('the indexed columns of a row', () => {
  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: never before the empty instant; kept only within their bounds; rewritten exactly`, () => {
      fc.assert(property(SqliteStore, algorithm), { numRuns: 60 });
    });
  }

  it('are rewritten by 18 of a busy key’s 599 writes: 1,000 requests at twice a bucket’s refill', () => {
    const path = dir.file();
    const store = new SqliteStore({ path });
    const clock = new ManualClock(1_700_000_000_000);
    const limiter = makeLimiter({ algorithm: 'token-bucket', capacity: 100, refillPerSecond: 10 }, store, clock);
    let admitted = limiter.consume('busy').allowed ? 1 : 0; // creates the tables
    const db = loadDriver('test', 'auto').open(path);
    const read = db.prepare('SELECT expires_at, fill FROM rk_rows');
    let columns = '';
    let rewrites = 0;
    for (let i = 0; i < 1000; i++) {
      if (i > 0 && limiter.consume('busy').allowed) admitted++;
      const row = read.get() as unknown as Row;
      if (`${row.expires_at} ${row.fill}` !== columns) rewrites++;
      columns = `${row.expires_at} ${row.fill}`;
      clock.advance(50);
    }
    db.close();
    store.close();
    // Every write changed them once (599 admissions); now about one in thirty does.
    expect({ admitted, rewrites }).toEqual({ admitted: 599, rewrites: 18 });
  });

  it('catches an expiry kept past the empty instant (mutant index-kept-past-empty): the property fails there', async () => {
    const { SqliteStore: Mutant } = (await import(mutantBuild('index-kept-past-empty'))) as { SqliteStore: typeof SqliteStore };
    let failed: unknown;
    try {
      fc.assert(property(Mutant, 'token-bucket'), { numRuns: 200 });
    } catch (error) {
      failed = (error as Error).cause;
    }
    expect(String(failed)).toMatch(/expires_at before the empty instant/);
  });

  /** usedAfterGrace: a key uses 500 of 10,000 tokens, a new key arrives 92 s later (deleting expired rows: written 30 s past empty, then the grace); what the first key has left. */
  function usedAfterGrace(store: Store<'sync'>): number {
    const clock = new ManualClock(1_700_000_000_000);
    const limiter = makeLimiter({ algorithm: 'token-bucket', capacity: 10_000, refillPerSecond: 1 }, store, clock);
    for (let i = 0; i < 500; i++) limiter.consume('busy');
    clock.advance(92_000);
    limiter.consume('fresh');
    return limiter.peek('busy').remaining;
  }

  /** unseen is what a key never used has (a peek's remaining, after its own cost). */
  function unseen(): number {
    return makeLimiter({ algorithm: 'token-bucket', capacity: 10_000, refillPerSecond: 1 }, new MemoryStore(), new ManualClock(0)).peek('k').remaining;
  }

  it('keeps a live key through a new key’s cleanup; the mutant deletes it, and the key gets back what it had used', async () => {
    const kept = usedAfterGrace(new MemoryStore());
    expect(kept).toBeLessThan(unseen());
    const store = new SqliteStore({ path: dir.file() });
    expect(usedAfterGrace(store)).toBe(kept);
    store.close();
    const { SqliteStore: Mutant } = (await import(mutantBuild('index-kept-past-empty'))) as { SqliteStore: typeof SqliteStore };
    const mutant = new Mutant({ path: dir.file() });
    expect(usedAfterGrace(mutant)).toBe(unseen());
    mutant.close();
  });
});
