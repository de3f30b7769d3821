/**
 * Mutant builds of this store: deliberately broken variants, each this package's own source with a few
 * exact edits, compiled into .builds/<name>/ by @ratekeeper/store-contract's mutantBuilder (every
 * edit must match its source exactly once, or the build fails loudly).
 */
import { fileURLToPath } from 'node:url';
import { type Edit, mutantBuilder } from '@ratekeeper/store-contract';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

export const MUTANTS = {
  /** State written in single precision: a fractional bucket drifts. */
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the edits are source text that holds template literals
  'lossy-state': [['sql/sql.ts', 'return `${value}::float8`;', 'return `${Math.fround(value)}::float8`;']],
  /**
   * No row lock: the batch reads its rows with a plain SELECT instead of the locking upsert, and
   * counts its write as done whatever it wrote: two processes decide on one state (a read-modify-write
   * race), one call per transaction. (The count alone happens to catch some of these races: an UPDATE that waited for another
   * transaction's write of its row rechecks its join and may write nothing.)
   */
  'no-lock': [
    [
      'sql/sql.ts',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text that holds a template literal
      '`BEGIN; SET LOCAL extra_float_digits = 3; WITH u AS (INSERT INTO ${table} AS t (k) VALUES ${values} ON CONFLICT (k) DO UPDATE SET k = t.k RETURNING t.k, t.state) ` +',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text that holds a template literal
      '`BEGIN; SET LOCAL extra_float_digits = 3; INSERT INTO ${table} (k) VALUES ${values} ON CONFLICT (k) DO NOTHING; WITH u AS (SELECT k, state FROM ${table} WHERE k IN (${values})) ` +',
    ],
    ['wire/transaction.ts', "if (numberOf(written, 'n') !== writes.length) return new Expired(timeMs);", ''],
    // One call per transaction, as a store without batching: a batch of 500 admits the whole limit at
    // once, so only two first batches overlapping would show the race, which a loaded machine may stagger.
    ['wire/batcher.ts', 'export const MAX_BATCH = 500;', 'export const MAX_BATCH = 1;'],
  ],
  /** A COMMIT whose reply was lost counted as a failure: decided by the failure policy although the database may have recorded it. */
  'lost-commit-fails': [
    [
      'wire/transaction.ts',
      'if (answers !== undefined && txid !== undefined && breaksConnection(error)) return fateOfLost(ctx, batch, txid, answers, startedAt);',
      'if (answers !== undefined && breaksConnection(error)) throw error;',
    ],
  ],
  /** A peek that starts a ban, as a consume's denial does. */
  'peek-bans': [
    [
      'rows/apply.ts',
      '  if (op.commit) writeRow(rows, ban.row, Float64Array.of(at + ban.banMs, op.cost), at + ban.banMs);',
      '  writeRow(rows, ban.row, Float64Array.of(at + ban.banMs, op.cost), at + ban.banMs);',
    ],
  ],
  /** A denial during a ban restarts it (the ban's end moves with every request made while banned). */
  'denial-rebans': [
    [
      'rows/apply.ts',
      '  if (held !== undefined) return [bannedDecision(policy, held.until - at)];',
      '  if (held !== undefined) {\n    writeRow(rows, ban.row, Float64Array.of(at + ban.banMs, op.cost), at + ban.banMs);\n    return [bannedDecision(policy, held.until - at)];\n  }',
    ],
  ],
  /** A connection that died while being made fails the batch (the failure policy decides it) instead of being made again. */
  'connect-dies-fails': [['wire/transaction.ts', 'if (breaksConnection(error) && !unreachable(error)) return RERUN;', '']],
  /**
   * A transaction that commits whatever its deadline: a batch still waiting (for a lock, a hung server)
   * when core's Remote decided its calls by the failure policy commits them too once it goes on.
   */
  'commit-past-deadline': [
    ['wire/transaction.ts', 'const done = await attempt(ctx, batch, deadline, startedAt);', 'const done = await attempt(ctx, batch, Number.MAX_SAFE_INTEGER, startedAt);'],
  ],
  /** A sweep that deletes rows still live: the grace added to the batch's time instead of taken off. */
  'sweep-live-rows': [['sql/sweep.ts', 'timeMs - EXPIRED_GRACE_MS', 'timeMs + EXPIRED_GRACE_MS']],
  /** The sweep awaited in the decision path: a commit's calls answer only once the sweep it started has ended. */
  'sweep-awaited': [
    ['sql/sweep.ts', 'committed(timeMs: number): void {', 'committed(timeMs: number): Promise<unknown> | undefined {'],
    ['sql/sweep.ts', 'if (this.#running || performance.now() < this.#nextAt) return;', 'if (this.#running || performance.now() < this.#nextAt) return undefined;'],
    ['sql/sweep.ts', 'this.#db.query(sweepSql(', 'return this.#db.query(sweepSql('],
    ['wire/transaction.ts', 'committed(timeMs: number): void;', 'committed(timeMs: number): unknown;'],
    ['wire/transaction.ts', 'ctx.committed(ctx.clientTime ? lastNow(batch) : timeMs);', 'await ctx.committed(ctx.clientTime ? lastNow(batch) : timeMs);'],
  ],
  /** A booking that does not keep its ledger: the next booking ignores the bookings ahead of it (no first come, first served). */
  'ledger-unsaved': [['bindings/reserve.ts', '        writeRow(rows, ledgers[i] as string, Float64Array.from(ledgerNumbers(ledger)), latestBooked(ledger));\n', '']],
  /** A cancel that gives back at or after the booked instant (the request may have gone). */
  'cancel-after-instant': [
    ['bindings/reserve.ts', 'done = cancelBooking(scratches, SCRATCH_KEY, entry, at);', 'done = cancelBooking(scratches, SCRATCH_KEY, entry, Number.NEGATIVE_INFINITY);'],
  ],
  /** One ping at a time, as before: a ping stuck on a dead connection stops the asking, and a live database behind a lock is judged stopped. */
  'one-ping': [['wire/batcher.ts', 'const MAX_PINGS = 3;', 'const MAX_PINGS = 1;']],
  /** Leases that never expire: a stopped process's leases hold the key for ever. */
  'leases-never-expire': [
    ['rows/apply.ts', 'return part.lease === undefined ? state : leaseView(state, at);', 'return part.lease === undefined ? state : leaseView(state, Number.NEGATIVE_INFINITY);'],
  ],
  /** A renewal that changes nothing: a long request's lease expires leaseTtlMs after its acquire. */
  'renew-ignored': [['rows/apply.ts', '  writeRow(rows, part.row, renewed.state, renewed.expiresAt);\n', '']],
  /** A store that decides by its failure policy in silence: no warning, with or without a 'failure' listener. */
  'silent-failures': [['postgres-store.ts', '    this.#warn(info);\n', '']],
  /** Answers along the way (locks granted, errors the database sent) not told to core's Remote: a storm that cuts every transaction short reads as silence. */
  'alive-ignored': [['postgres-store.ts', 'const alive = (): void => remote.alive();', 'const alive = (): void => {};']],
} satisfies Record<string, readonly Edit[]>;

export type MutantName = keyof typeof MUTANTS;

/** mutantBuild compiles the named mutant (once per process) and returns the URL of its index.js. */
export const mutantBuild = mutantBuilder(PACKAGE, MUTANTS);
