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
  'user-probe': [['postgres-store.ts', '      probe: () => ({ deadlined: false, send: () => dialect.ping() }),\n', '']],
  /** State read in single precision (by a transaction and by the one statement alike): a fractional bucket drifts. */
  'lossy-state': [
    ['sql.ts', 'for (let i = 0; i < parts.length; i++) state[i] = Number(parts[i]);', 'for (let i = 0; i < parts.length; i++) state[i] = Math.fround(Number(parts[i]));'],
  ],
  /**
   * No row lock: the transaction reads its rows with a plain SELECT instead of the locking upsert and
   * counts its write as done whatever it wrote, one call per transaction (a batch of hundreds admits the
   * whole limit at once, so only two first batches overlapping would show the race).
   */
  'no-lock': [
    [
      'sql.ts',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text that holds a template literal
      '`WITH u AS (INSERT INTO ${quoted(table)} AS t (k) VALUES ${values} ON CONFLICT (k) DO UPDATE SET k = t.k RETURNING t.k, t.state) ` +',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text that holds a template literal
      '`INSERT INTO ${quoted(table)} (k) VALUES ${values} ON CONFLICT (k) DO NOTHING; WITH u AS (SELECT k, state FROM ${quoted(table)} WHERE k IN (${values})) ` +',
    ],
    ['dialect.ts', "return { committed: numberOf(written, 'n') === writes.length, at: numberOf(written, 'now') };", "return { committed: true, at: numberOf(written, 'now') };"],
    ['core', 'store/rows/batcher.ts', 'export const MAX_BATCH = 256;', 'export const MAX_BATCH = 1;'],
  ],
  /** A COMMIT whose reply was lost counted as a failure: decided by the failure policy although the database may have recorded it. */
  'lost-commit-fails': [
    [
      'core',
      'store/rows/sql-transactor.ts',
      "if (fate !== undefined && kind === 'lost') return this.#fateOf(fate, startedAt);",
      "if (fate !== undefined && kind === 'lost') throw error;",
    ],
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
  /** A denial during a ban restarts it (the ban's end moves with every request made while banned). */
  'denial-rebans': [
    [
      'core',
      'store/rows/apply.ts',
      '  if (held !== undefined) return [bannedDecision(policy, held.until - at)];',
      '  if (held !== undefined) {\n    writeRow(rows, ban.id, Float64Array.of(at + ban.banMs, op.cost), at + ban.banMs);\n    return [bannedDecision(policy, held.until - at)];\n  }',
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
    [
      'dialect.ts',
      'const written = (await session.query(commitSql(table, writes, deadline)))[0];',
      'const written = (await session.query(commitSql(table, writes, Number.MAX_SAFE_INTEGER)))[0];',
    ],
  ],
  /** A sweep that deletes rows still live: the grace added to the batch's time instead of taken off. */
  'sweep-live-rows': [['core', 'store/rows/housekeeping.ts', 'this.#sweep(at - EXPIRED_GRACE_MS, SWEEP_LIMIT)', 'this.#sweep(at + EXPIRED_GRACE_MS, SWEEP_LIMIT)']],
  /** The sweep awaited in the decision path: a commit's calls answer only once the sweep it started has ended. */
  'sweep-awaited': [
    ['core', 'store/rows/housekeeping.ts', 'committed(at: number): void {', 'committed(at: number): Promise<unknown> | undefined {'],
    [
      'core',
      'store/rows/housekeeping.ts',
      'if (this.#running || performance.now() < this.#nextAt) return;',
      'if (this.#running || performance.now() < this.#nextAt) return undefined;',
    ],
    ['core', 'store/rows/housekeeping.ts', 'this.#sweep(at - EXPIRED_GRACE_MS, SWEEP_LIMIT).then(', 'return this.#sweep(at - EXPIRED_GRACE_MS, SWEEP_LIMIT).then('],
    ['core', 'store/rows/sql-transactor.ts', 'committed?(at: number): void;', 'committed?(at: number): unknown;'],
    ['core', 'store/rows/sql-transactor.ts', 'this.#o.committed?.(latest);', 'await this.#o.committed?.(latest);'],
  ],
  /** Lock waits not bounded on the server: with every connection of the pool waiting on a lock, a busy database reads as a stopped one. */
  'unbounded-lock-wait': [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text that holds a template literal
    ['sql.ts', '`BEGIN; SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockWaitMs))}; SET LOCAL extra_float_digits = 3; ` +', "'BEGIN; SET LOCAL extra_float_digits = 3; ' +"],
  ],
  /** A store that decides by its failure policy in silence: no warning, with or without a 'failure' listener. */
  'silent-failures': [['core', 'store/rows/row-store.ts', '        warn(info);\n', '']],
  /** Answers along the way (locks granted, errors the database sent) not told to core's Remote: a storm that cuts every transaction short reads as silence. */
  'alive-ignored': [['postgres-store.ts', 'const alive = (): void => remote?.alive();', 'const alive = (): void => {};']],
  /** Every policy name kept for ever (PostgreSQL's plain Map before the kit): memory grows with every name a process ever bound. */
  'names-forever': [['core', 'store/rows/names.ts', 'if (entry !== undefined && --entry.live === 0) this.#entries.delete(name);', 'if (entry !== undefined) --entry.live;']],
  /** A refund the database could not take is dropped (given to the fallback only), not owed to the database. */
  'refund-dropped': [['core', 'store/rows/binding.ts', '      this.engine.owe(op, this.policy.name);\n', '']],
} satisfies Record<string, readonly Edit[]>;

export type MutantName = keyof typeof MUTANTS;

/** mutantBuild compiles the named mutant (once per process) and returns the URL of its index.js. */
export const mutantBuild = mutantBuilder(PACKAGE, MUTANTS);
