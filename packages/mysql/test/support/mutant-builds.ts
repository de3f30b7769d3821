/**
 * Mutant builds of this store: deliberately broken variants, each this package's own source (or core's
 * row-store kit beneath it: edits that start with 'core') with a few exact edits, compiled into
 * .builds/<pid>/<name>/ by @ratekeeper/store-contract's mutantBuilder (every edit must match its source
 * exactly once, or the build fails loudly).
 */
import { fileURLToPath } from 'node:url';
import { type Edit, KIT_MUTANTS, SQL_KIT_MUTANTS, mutantBuilder } from '@ratekeeper/store-contract';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

export const MUTANTS = {
  ...KIT_MUTANTS,
  ...SQL_KIT_MUTANTS,
  /** The breaker's probe is a user's call (no background SELECT 1): a database that accepts and answers nothing holds it. */
  'user-probe': [['mysql-store.ts', '      probe: () => ({ deadlined: false, send: () => dialect.ping() }),\n', '']],
  /** State kept in single precision (4 bytes a number): a fractional bucket drifts. */
  'lossy-state': [['sql.ts', 'bytes.writeDoubleLE(state[i] as number, i * 8);', 'bytes.writeDoubleLE(Math.fround(state[i] as number), i * 8);']],
  /**
   * No row locks: the rows are made outside the transaction and read without FOR UPDATE (lost updates
   * between transactions), one call per transaction (a batch of hundreds admits the whole limit at
   * once, so only two first batches overlapping would show the race), and 2 ms between the read and
   * the write, as on a loaded server: on a quiet one, four connections' transactions of a fraction of a
   * millisecond overlapped in none of three runs once in CI.
   */
  'no-lock': [
    ['sql.ts', ') FOR UPDATE`,', ')`,'],
    [
      'dialect.ts',
      "        await connection.query('START TRANSACTION');\n        await connection.query(sql.lock(ids.length, lockWaitMs), ids);\n",
      "        await connection.query(sql.lock(ids.length, lockWaitMs), ids);\n        await connection.query('START TRANSACTION');\n",
    ],
    [
      'dialect.ts',
      '        const rows = rowsOf(await connection.query(sql.read(ids.length), ids));\n',
      '        const rows = rowsOf(await connection.query(sql.read(ids.length), ids));\n        await new Promise((resolve) => setTimeout(resolve, 2));\n',
    ],
    ['core', 'store/rows/batcher.ts', 'export const MAX_BATCH = 256;', 'export const MAX_BATCH = 1;'],
  ],
  /** A connection lost before the commit fails the batch (decided by the failure policy) instead of running it again. */
  'lost-is-failure': [['core', 'store/rows/sql-transactor.ts', "      if (kind === 'lost' || kind === 'retry') return RERUN;", "      if (kind === 'retry') return RERUN;"]],
  /** A commit whose reply was lost is run again without asking whether it committed. */
  'blind-commit-retry': [
    [
      'core',
      'store/rows/sql-transactor.ts',
      "if (fate !== undefined && kind === 'lost') return this.#fateOf(fate, startedAt);",
      "if (fate !== undefined && kind === 'lost') return RERUN;",
    ],
  ],
  /** A transaction that commits whatever its deadline: a batch still waiting (a lock, a hung server) when Remote decided its calls by policy commits them too. */
  'commit-past-deadline': [
    [
      'core',
      'store/rows/sql-transactor.ts',
      'const done = await this.#attempt(refs, work, deadline, startedAt);',
      'const done = await this.#attempt(refs, work, Number.MAX_SAFE_INTEGER, startedAt);',
    ],
    ['dialect.ts', 'await connection.query(sql.commit, [deadline, batch])', 'await connection.query(sql.commit, [Number.MAX_VALUE, batch])'],
  ],
  /** A peek that starts a ban, as a consume's denial does. */
  'peek-bans': [
    [
      'core',
      'store/rows/apply.ts',
      '  if (op.commit) writeRow(rows, ban.id, Float64Array.of(at + ban.banMs, op.cost), at + ban.banMs);',
      '  writeRow(rows, ban.id, Float64Array.of(at + ban.banMs, op.cost), at + ban.banMs);',
    ],
  ],
  /** A store that decides by its failure policy in silence: no warning, with or without a 'failure' listener. */
  'silent-failures': [['core', 'store/rows/row-store.ts', '        warn(info);\n', '']],
  /** Lock waits not bounded on the server: a lock held by another session is a silent database, so its calls fall back within about timeoutMs. */
  'unbounded-lock-wait': [
    [
      'sql.ts',
      'function bounded(flavor: Flavor, ms: number, statement: string): string {\n',
      'function bounded(flavor: Flavor, ms: number, statement: string): string {\n  if (statement !== "") return statement;\n',
    ],
  ],
  /** Decisions at the server's clock as read, microseconds and all, not its whole millisecond. */
  'fractional-clock': [['core', 'store/rows/sql-transactor.ts', 'latest = work(rows, Math.floor(locked.at));', 'latest = work(rows, locked.at);']],
  /** A refund the database could not take is dropped (given to the fallback only), not owed to the database. */
  'refund-dropped': [['core', 'store/rows/binding.ts', '      this.engine.owe(op, this.policy.name);\n', '']],
  /** A commit routine named after the table as MySQL compares routine names (without case): `CaseA` and `casea` share one, and its records. */
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the edits are source text that holds template literals
  'case-blind-routine': [['sql.ts', 'return `${table}_c${capitals.toString(16)}`;', 'return `${table.toLowerCase()}_c0`;']],
} satisfies Record<string, readonly Edit[]>;

export type MutantName = keyof typeof MUTANTS;

/** mutantBuild compiles the named mutant (once per process) and returns the URL of its index.js. */
export const mutantBuild = mutantBuilder(PACKAGE, MUTANTS);
