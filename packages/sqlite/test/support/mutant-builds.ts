/**
 * Mutant builds of this store: deliberately broken variants, each this package's own source (or core's
 * row-store kit beneath it: edits that start with 'core') with a few exact edits, compiled into
 * .builds/<pid>/<name>/ by @ratekeeper/store-contract's mutantBuilder (every edit must match its source
 * exactly once, or the build fails loudly).
 */
import { fileURLToPath } from 'node:url';
import { type Edit, KIT_MUTANTS, mutantBuilder } from '@ratekeeper/store-contract';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

export const MUTANTS = {
  /** Core's row-store kit broken: leases-never-expire, renew-ignored, ledger-unsaved, cancel-after-instant. */
  ...KIT_MUTANTS,
  /** A deferred transaction: it reads first and asks for the write lock at its first write. */
  'deferred-transaction': [['sql.ts', "begin: p('BEGIN IMMEDIATE'),", "begin: p('BEGIN DEFERRED'),"]],
  /** No transaction at all: the read and the write of a decision are separate statements. */
  'no-transaction': [
    [
      'file.ts',
      '      if (write) this.#waitFor(this.#db as Connection, () => s.begin.run(), probing ? Math.min(PROBE_QUIET_MS, this.#o.busyTimeoutMs) : this.#o.busyTimeoutMs);\n      else s.beginRead.run();\n',
      '',
    ],
    ['file.ts', '      s.commit.run();\n', ''],
  ],
  /** State kept in single precision (4 bytes a number): a fractional bucket drifts. */
  'lossy-state': [['rows.ts', 'return Buffer.from(state.buffer, state.byteOffset, state.byteLength);', 'return Buffer.from(Float64Array.from(state, Math.fround).buffer);']],
  /** Eviction by the expiry alone: in a fixed window every key shares it, the blocked key included. */
  'evict-by-expiry': [['sql.ts', 'WHERE name = ? AND fill < 9e999 ORDER BY fill LIMIT 1', 'WHERE name = ? ORDER BY expires_at LIMIT 1']],
  /** A row's indexed columns kept without the lower bound: its expiry kept however far its state's empty instant moved past it. */
  'index-kept-past-empty': [
    ['rows.ts', 'if (before.expiresAt < row.expiresAt || before.expiresAt > row.expiresAt + slack) return false;', 'if (before.expiresAt > row.expiresAt + slack) return false;'],
  ],
  /** A full table that deletes a row as empty only once its expires_at has passed (which may lie past its empty instant). */
  'empty-by-stored-expiry': [['sql.ts', 'WHERE empty_at <= ? LIMIT 1', 'WHERE expires_at <= ? LIMIT 1']],
  /** A failure thrown to the caller instead of decided by the failure policy. */
  'throwing-failures': [
    [
      'core',
      'store/rows/sync-runner.ts',
      'return then(failed instanceof Failure ? failed : answer);',
      'if (failed instanceof Failure) throw failed.error;\n    return then(answer);',
    ],
  ],
  /** Every process's fallback enforces the whole limit during an outage: N processes, N limits. */
  'undivided-fallback': [
    ['sqlite-store.ts', "fallbackDivisor: () => (divisor === 'peers' ? file.peers : divisor),", "fallbackDivisor: () => (divisor === 'peers' ? 1 : divisor),"],
  ],
  /** A store that decides by its failure policy in silence: no warning, with or without a 'failure' listener. */
  'silent-failures': [['core', 'store/rows/row-store.ts', '        warn(info);\n', '']],
  /** No inode check: a process keeps deciding on a file moved or deleted under it while others decide on the path's new one. */
  'no-inode-check': [['file.ts', "      if (write && this.#inode !== '' && inodeOf(this.#o.path) !== this.#inode) throw new MovedError();\n", '']],
} satisfies Record<string, readonly Edit[]>;

export type MutantName = keyof typeof MUTANTS;

/** mutantBuild compiles the named mutant (once per process) and returns the URL of its index.js. */
export const mutantBuild = mutantBuilder(PACKAGE, MUTANTS);
