/**
 * Mutant builds of this store: deliberately broken variants, each this package's own source with a few
 * exact edits, compiled into .builds/<name>/ by @ratekeeper/store-contract's mutantBuilder (every
 * edit must match its source exactly once, or the build fails loudly).
 */
import { fileURLToPath } from 'node:url';
import { type Edit, mutantBuilder } from '@ratekeeper/store-contract';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

export const MUTANTS = {
  /** A deferred transaction: it reads first and asks for the write lock at its first write. */
  'deferred-transaction': [['sql/sql.ts', "begin: p('BEGIN IMMEDIATE'),", "begin: p('BEGIN DEFERRED'),"]],
  /** No transaction at all: the read and the write of a decision are separate statements. */
  'no-transaction': [
    [
      'file/file.ts',
      '      if (!write) open.beginRead.run();\n      else if (probing) open.begin.run();\n      else this.#waitFor(this.#db as Connection, () => open.begin.run());\n',
      '',
    ],
    ['file/file.ts', '      sql.commit.run();\n', ''],
  ],
  /** State kept in single precision (4 bytes a number): a fractional bucket drifts. */
  'lossy-state': [['rows/codec.ts', 'bytes.writeDoubleLE(state[i] as number, i * 8);', 'bytes.writeDoubleLE(Math.fround(state[i] as number), i * 8);']],
  /** Leases that never expire: a crashed or stopped process's units stay taken for good. */
  'leases-never-expire': [
    ['bindings/leases.ts', "const expired = state === undefined ? 0 : (sql.expiredLeases.get(this.policy.name, key, now)?.['n'] as number);", 'const expired = 0;'],
  ],
  /** A renewal that changes nothing: a long request's lease expires leaseTtlMs after its acquire. */
  'renew-ignored': [
    ['bindings/leases.ts', 'sql.renewLease.run(expiresAt, name, entry.stored, unit.expiresAt,', 'sql.renewLease.run(unit.expiresAt, name, entry.stored, unit.expiresAt,'],
  ],
  /** A booking that does not keep its ledger: the next booking ignores the bookings ahead of it (no first come, first served). */
  'ledger-unsaved': [['bindings/reserve.ts', '      sql.putLedger.run(m.table.name, stored, encodeState(Float64Array.from(ledgerNumbers(ledger))), latestBooked(ledger));\n', '']],
  /** A cancel that gives back at or after the booked instant (the request may have gone). */
  'cancel-after-instant': [['bindings/reserve.ts', 'const cancelled = booking.cancel(at) as boolean;', 'const cancelled = booking.cancel(Number.NEGATIVE_INFINITY) as boolean;']],
  /** Eviction by the empty instant alone: in a fixed window every key shares it, the blocked key included. */
  'evict-by-expiry': [['sql/sql.ts', 'ORDER BY fill, expires_at LIMIT 1', 'ORDER BY expires_at LIMIT 1']],
  /** A row's indexed columns kept without the lower bound: its expiry kept however far its state's empty instant moved past it. */
  'index-kept-past-empty': [['sql/sql.ts', 'AND expires_at >= ? AND expires_at <= ? AND', 'AND ? IS NOT NULL AND expires_at <= ? AND']],
  /** A full table that deletes a row as empty only once its expires_at has passed (which may lie past its empty instant). */
  'empty-by-stored-expiry': [['rows/table.ts', "this.algorithm.emptyAt(this.policy, decodeState(row['state'] as Uint8Array), 0)", 'Number.POSITIVE_INFINITY']],
  /** A failure thrown to the caller instead of decided by the failure policy. */
  'throwing-failures': [
    [
      'bindings/binding.ts',
      'return decided instanceof Failure ? this.failed(operation, decided, key, now, cost, commit) : decided;',
      'if (decided instanceof Failure) throw decided.error; return decided;',
    ],
  ],
  /** Every process's fallback enforces the whole limit during an outage: N processes, N limits. */
  'undivided-fallback': [
    ['options.ts', "if (value === undefined || value === 'peers') return 'peers';", "if (value === undefined) return 1;\n  if (value === 'peers') return 'peers';"],
  ],
  /** A store that decides by its failure policy in silence: no warning, with or without a 'failure' listener. */
  'silent-failures': [['sqlite-store.ts', '    this.#warn(info);\n', '']],
} satisfies Record<string, readonly Edit[]>;

export type MutantName = keyof typeof MUTANTS;

/** mutantBuild compiles the named mutant (once per process) and returns the URL of its index.js. */
export const mutantBuild = mutantBuilder(PACKAGE, MUTANTS);
