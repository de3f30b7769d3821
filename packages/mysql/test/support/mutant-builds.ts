/**
 * Mutant builds of this store: deliberately broken variants, each this package's own source with a few
 * exact edits, compiled into .builds/<name>/ by @ratekeeper/store-contract's mutantBuilder (every
 * edit must match its source exactly once, or the build fails loudly).
 */
import { fileURLToPath } from 'node:url';
import { type Edit, mutantBuilder } from '@ratekeeper/store-contract';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

export const MUTANTS = {
  /** State kept in single precision (4 bytes a number): a fractional bucket drifts. */
  'lossy-state': [['rows/codec.ts', 'bytes.writeDoubleLE(state[i] as number, i * 8);', 'bytes.writeDoubleLE(Math.fround(state[i] as number), i * 8);']],
  /** No row locks: the rows are created outside the transaction and read without FOR UPDATE (lost updates between batches). */
  'no-lock': [
    ['sql/dialect.ts', ' FOR UPDATE`,', '`,'],
    ['wire/transaction.ts', "    await connection.query('START TRANSACTION');\n", ''],
    [
      'wire/transaction.ts',
      '    await connection.query(sql.lock(rows.length), keys);\n',
      "    await connection.query(sql.lock(rows.length), keys);\n    await connection.query('START TRANSACTION');\n",
    ],
  ],
  /** A connection lost before the commit is a failure (decided by the failure policy) instead of a batch run again. */
  'lost-is-failure': [['wire/transaction.ts', '    if (!committing) return true;\n', '    if (!committing) return false;\n']],
  /** A connection lost during the commit is taken as a commit that failed: the batch runs again even if it committed. */
  'blind-commit-retry': [['wire/transaction.ts', '    const found = await this.#committed(batch);\n', '    const found = false as boolean | undefined;\n']],
  /** The commit ignores the deadline: a transaction the caller gave up on still commits. */
  'commit-past-deadline': [
    [
      'wire/transaction.ts',
      'const [sets] = await connection.query(sql.commit, [deadline, batch]);',
      'const [sets] = await connection.query(sql.commit, [Number.MAX_VALUE, batch]);',
    ],
    ['wire/transaction.ts', '    if (!(now < deadline)) {', '    if (now < 0) {'],
  ],
  /** A peek that starts a ban, as a consume's denial does. */
  'peek-bans': [
    [
      'rows/steps.ts',
      "    if (call.kind === 'consume') this.#set(id, Float64Array.of(at + ban.banMs, call.cost));",
      '    this.#set(id, Float64Array.of(at + ban.banMs, call.cost));',
    ],
  ],
  /** A connection that died while being made fails the batch (decided by the failure policy) instead of being made again. */
  'connect-dies-fails': [['wire/transaction.ts', '        if (!isLost(error) || unreachable(error)) throw error;\n', '        throw error;\n']],
  /** A booking that ignores the bookings ahead of it on the key (no first come, first served: it can go early). */
  'book-jumps-queue': [['rows/steps.ts', '      if (last > at && last > ahead) ahead = last;\n', '']],
  /** A cancel at or after the booked instant still gives the units back (the request may have gone). */
  'cancel-after-instant': [['rows/steps.ts', '    if (!(at < cancel.at)) return false;\n', '']],
  /** Leases that never expire: a stopped process's leases hold the key for ever. */
  'leases-never-expire': [
    ['rows/steps.ts', 'return m.leases === true ? leaseView(state, at) : state;', 'return m.leases === true ? leaseView(state, Number.NEGATIVE_INFINITY) : state;'],
  ],
  /** A renewal that changes nothing: a long request's lease expires leaseTtlMs after its acquire. */
  'renew-ignored': [['rows/steps.ts', "call.kind === 'renew' ? renewLeases(this.states.get(id), work as LeaseWork, at) :", "call.kind === 'renew' ? undefined :"]],
  /** A store that decides by its failure policy in silence: no warning, with or without a 'failure' listener. */
  'silent-failures': [['mysql-store.ts', '    this.#warn(info);\n', '']],
} satisfies Record<string, readonly Edit[]>;

export type MutantName = keyof typeof MUTANTS;

/** mutantBuild compiles the named mutant (once per process) and returns the URL of its index.js. */
export const mutantBuild = mutantBuilder(PACKAGE, MUTANTS);
