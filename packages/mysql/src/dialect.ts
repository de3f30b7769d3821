/**
 * MySqlDialect: the kit's SqlDialect (core's sql-transactor.ts) for MySQL 8.0.29+ and MariaDB 10.5+. A
 * transaction is one pooled connection: START TRANSACTION, the lock (each wait bounded on the server:
 * ./sql.ts), the read of the locked rows with the server's clock and the connection's id; then, when
 * rows changed, the write and the commit routine. A commit whose reply was lost is unknown while its
 * connection still runs on the server (it may yet commit), then committed when its id is recorded.
 *
 * Errors: a server's reply carries an errno and a SQLSTATE. A deadlock (1213), a lock wait timeout
 * (1205) or a statement's time bound (MariaDB 1969, MySQL 3024) rolled back: run again. A connection
 * killed or a server going away (1053, 1317, 1927, 2006, 2013, 4031), or an error without a SQLSTATE,
 * ended the connection; a server unreachable (core's `unreachable`), refusing connections (1040) or a
 * pool already ended is refused at once. The server is working when it sent the error itself.
 */
import { randomInt } from 'node:crypto';
import { type Locked, type RowRef, type SqlDialect, type SqlErrorKind, type SqlSession, type Write, unreachable } from '@ratekeeper/core/store';
import { type MySqlPool, type QueryResult, rerunning } from './client.js';
import { TIME, mysqlSchema, readState, statements, writeValues } from './sql.js';

const RETRY: readonly number[] = [1205, 1213, 1969, 3024];
const LOST: readonly number[] = [1053, 1317, 1927, 2006, 2013, 4031];

type Failed = { errno?: unknown; sqlState?: unknown; message?: unknown } | null;

/** serverErrno is the errno of an error the server sent, else undefined. */
function serverErrno(error: unknown): number | undefined {
  const e = error as Failed;
  return typeof e?.errno === 'number' && typeof e.sqlState === 'string' ? e.errno : undefined;
}

/** classify tells what an error means (see above). */
export function classify(error: unknown): SqlErrorKind {
  if (error instanceof AnswerError) return 'reply';
  const errno = serverErrno(error);
  if (unreachable(error) || errno === 1040 || /Pool is closed/.test(String((error as Failed)?.message))) return 'refused';
  if (errno === undefined || LOST.includes(errno)) return 'lost';
  return RETRY.includes(errno) ? 'retry' : 'reply';
}

/** working tells an error a working database sent (see above). */
export function working(error: unknown): boolean {
  const errno = serverErrno(error);
  return errno !== undefined && errno !== 1040 && errno !== 1053;
}

/** AnswerError: the database answered something this store cannot read (a reply failure, not a connection's). */
class AnswerError extends Error {}

type Row = Readonly<Record<string, unknown>>;

function rowsOf(result: QueryResult): Row[] {
  return result[0] as Row[];
}

function numberOf(row: Row | undefined, column: string): number {
  const value = Number(row?.[column]);
  if (!Number.isFinite(value)) throw new AnswerError(`MySqlStore: an answer without ${column}`);
  return value;
}

export class MySqlDialect implements SqlDialect {
  readonly #pool: MySqlPool;
  readonly #query: MySqlPool['query'];
  readonly #table: string;
  readonly #create: boolean;
  /** The table's statements, for the server's flavor once ready() has asked it (every caller of a bounded one waits for that). */
  #sql: ReturnType<typeof statements>;
  #ready: Promise<void> | undefined;

  /** `alive` hears the errors the database sends along the way (core's Remote.alive). */
  constructor(pool: MySqlPool, table: string, create: boolean, alive: () => void) {
    this.#pool = pool;
    this.#query = rerunning(
      pool,
      (error) => classify(error) === 'lost',
      (error) => working(error) && alive(),
    );
    this.#table = table;
    this.#create = create;
    this.#sql = statements(table, 'mysql');
  }

  readonly classify = classify;
  readonly working = working;

  /** ready learns the server's flavor and creates the schema, once; a failure is tried again by the next call. */
  ready(): Promise<void> {
    this.#ready ??= this.#prepare().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #prepare(): Promise<void> {
    const version = String(rowsOf(await this.#query('SELECT VERSION() AS v'))[0]?.['v']);
    if (this.#create) for (const statement of mysqlSchema(this.#table).split('\n--\n')) await this.#query(statement);
    this.#sql = statements(this.#table, /mariadb/i.test(version) ? 'mariadb' : 'mysql');
  }

  async now(): Promise<number> {
    return numberOf(rowsOf(await this.#query(TIME))[0], 'now_ms');
  }

  ping(): Promise<unknown> {
    return this.#query('SELECT 1');
  }

  async fate(token: string): Promise<'committed' | 'aborted' | 'unknown'> {
    const [connection, batch] = token.split(':').map(Number);
    if (numberOf(rowsOf(await this.#query(this.#sql.live, [connection]))[0], 'n') > 0) return 'unknown';
    return rowsOf(await this.#query(this.#sql.committed, [batch])).length > 0 ? 'committed' : 'aborted';
  }

  async session(): Promise<SqlSession> {
    const connection = await this.#pool.getConnection();
    const sql = this.#sql;
    let batch = 0;
    return {
      async lock(refs: readonly RowRef[], lockWaitMs: number): Promise<Locked> {
        const ids = refs.map((ref) => Buffer.from(ref.id, 'hex'));
        await connection.query('START TRANSACTION');
        await connection.query(sql.lock(ids.length, lockWaitMs), ids);
        const rows = rowsOf(await connection.query(sql.read(ids.length), ids));
        if (rows.length !== refs.length) throw new AnswerError('MySqlStore: a locked row is missing from the answer');
        const states = new Map<string, Float64Array | undefined>();
        for (const row of rows) states.set((row['k'] as Buffer).toString('hex'), readState(row['state'] as Buffer | null));
        batch = randomInt(2 ** 47);
        return { states, at: numberOf(rows[0], 'now_ms'), fate: `${numberOf(rows[0], 'cid')}:${batch}` };
      },
      async commit(writes: readonly Write[], deadline: number) {
        await connection.query(sql.write(writes.length), writeValues(writes));
        const sets = (await connection.query(sql.commit, [deadline, batch]))[0] as Row[][];
        const at = numberOf(sets[0]?.[0], 'at_ms');
        return { committed: at > 0, at: Math.abs(at) };
      },
      rollback: async () => void (await connection.query('ROLLBACK')),
      release: (broken: boolean) => (broken ? connection.destroy() : connection.release()),
    };
  }

  /** beat records process `id` at the server's clock, forgets the processes unseen for `ttlMs`, and counts the rest (core's Peers). */
  async beat(id: string, ttlMs: number): Promise<number> {
    await this.ready();
    const sql = this.#sql;
    await this.#query(sql.beat, [id]);
    await this.#query(sql.forget, [ttlMs]);
    return numberOf(rowsOf(await this.#query(sql.count))[0], 'n');
  }

  /** sweep deletes up to `limit` rows empty before `before`, and the commit records older than `before`'s grace, each lock wait bounded. */
  async sweep(before: number, limit: number, lockWaitMs: number, keptMs: number): Promise<number> {
    const sql = this.#sql;
    const deleted = ((await this.#query(sql.sweep(lockWaitMs), [before, limit]))[0] as { affectedRows: number }).affectedRows;
    await this.#query(sql.sweepCommits(lockWaitMs), [keptMs, limit]);
    return deleted;
  }
}
