/**
 * PostgreSQL's dialect: every SQL text PostgresStore sends, and nothing else. The rest of the store
 * (the batch, the transaction, the failure policy) speaks of rows as hex keys, state texts and server
 * milliseconds, so a second SQL store (MySQL) can share it with its own file of this shape.
 *
 * Every statement is sent as plain text over the simple query protocol, so one round trip can carry
 * several statements (BEGIN with the lock, the write with COMMIT). No value of a caller ever reaches
 * the text as written: keys travel as hex (`decode('…','hex')`), states as arrays of numbers that
 * this file formats itself, and table names are checked identifiers (../options.ts).
 *
 * Times are server epoch milliseconds as float8 (microseconds kept), read with clock_timestamp() (the
 * real time at the moment of reading, not the start of the transaction as now() would be).
 */

/** NOW_MS reads the server's clock in epoch milliseconds. */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::float8';

/** schemaSql is the schema of a store on `table`: its rows, its expiry index and its peers. */
export function schemaSql(table: string, unlogged = false): string {
  const kind = unlogged ? 'UNLOGGED TABLE' : 'TABLE';
  const index = `${table.replace(/^.*\./, '')}_expires_at`;
  return [
    `CREATE ${kind} IF NOT EXISTS ${table} (`,
    '  k bytea PRIMARY KEY,',
    '  state float8[],',
    '  expires_at float8 NOT NULL DEFAULT 0',
    ');',
    `CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at);`,
    `CREATE ${kind} IF NOT EXISTS ${table}_peers (`,
    '  id text PRIMARY KEY,',
    '  seen float8 NOT NULL',
    ');',
    '',
  ].join('\n');
}

/**
 * createSql creates the schema once for every process that starts at the same time: an advisory lock
 * taken in the transaction makes concurrent CREATE … IF NOT EXISTS wait instead of colliding.
 */
export function createSql(table: string, unlogged: boolean): string {
  return `BEGIN; SELECT pg_advisory_xact_lock(hashtext('ratekeeper:' || '${table}')); ${schemaSql(table, unlogged)} COMMIT`;
}

/** number is a state number as SQL text: JavaScript's shortest exact form, which float8 reads back exactly. */
function number(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return "'Infinity'::float8";
  if (value === Number.NEGATIVE_INFINITY) return "'-Infinity'::float8";
  if (Object.is(value, -0)) return "'-0'::float8";
  return `${value}::float8`;
}

/** stateText is a state as an ARRAY[…] constructor, or NULL for the empty state. */
function stateText(state: ArrayLike<number> | undefined): string {
  if (state === undefined) return 'NULL::float8[]';
  const parts: string[] = [];
  for (let i = 0; i < state.length; i++) parts.push(number(state[i] as number));
  return `ARRAY[${parts.join(',')}]::float8[]`;
}

/**
 * lockSql opens the transaction and locks every row of `keys` (hex, sorted, distinct), inserting the
 * missing ones, in key order: every transaction of every process takes its rows in one order, so
 * two batches never deadlock. It answers each row's state with the transaction id (to learn its fate
 * when a COMMIT's reply is lost) and the server's clock read after the row was locked.
 */
export function lockSql(table: string, keys: readonly string[]): string {
  const values = keys.map((k) => `(decode('${k}','hex'))`).join(',');
  // extra_float_digits 3: float8 text is the shortest exact form, whatever the session's setting.
  return (
    `BEGIN; SET LOCAL extra_float_digits = 3; WITH u AS (INSERT INTO ${table} AS t (k) VALUES ${values} ON CONFLICT (k) DO UPDATE SET k = t.k RETURNING t.k, t.state) ` +
    `SELECT encode(k,'hex') AS k, state::text AS s, txid_current()::text AS x, ${NOW_MS}::text AS now FROM u`
  );
}

export interface Write {
  /** The row key, hex. */
  readonly key: string;
  /** The next state; undefined writes the empty state. */
  readonly state: Float64Array | undefined;
  /** When the state is empty again (the row's expiry), in the batch's time. */
  readonly expiresAt: number;
}

/**
 * commitSql writes every row of the batch and commits, in one round trip, only if the server's clock
 * has not reached `deadline`: the check is one InitPlan evaluated once before any row is written, so
 * all rows are written or none, and COMMIT follows at once on the server. It answers how many rows it
 * wrote (0 when past the deadline) and the server's clock.
 */
export function commitSql(table: string, writes: readonly Write[], deadline: number): string {
  const values = writes.map((w) => `(decode('${w.key}','hex'),${stateText(w.state)},${number(w.expiresAt)})`).join(',');
  return (
    `WITH w AS (UPDATE ${table} AS t SET state = v.s, expires_at = v.e FROM (VALUES ${values}) AS v(k, s, e) ` +
    `WHERE t.k = v.k AND (SELECT ${NOW_MS} < ${deadline}) RETURNING 1) ` +
    `SELECT count(*)::text AS n, ${NOW_MS}::text AS now FROM w; COMMIT`
  );
}

export const ROLLBACK = 'ROLLBACK';

/** TIME answers the server's clock (the 'expired' answer to a call sent before any sample of it). */
export const TIME = `SELECT ${NOW_MS}::text AS now`;

/** statusSql asks the fate of transaction `txid`: 'committed', 'aborted' or 'in progress'. */
export function statusSql(txid: string): string {
  return `SELECT txid_status(${BigInt(txid).toString()})::text AS status`;
}

/**
 * sweepSql deletes up to `limit` rows whose state was empty before `before`, through the expiry index
 * (never a scan of the table), skipping rows a decision holds: a row locked by a batch may be about to
 * receive a later expiry.
 */
export function sweepSql(table: string, before: number, limit: number): string {
  return (
    `WITH d AS (DELETE FROM ${table} WHERE k IN (SELECT k FROM ${table} WHERE expires_at < ${number(before)} ` +
    `ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED) RETURNING 1) SELECT count(*)::text AS n FROM d`
  );
}

/** beatSql records peer `id` (hex) at the server's clock, forgets the members unseen for `ttlMs`, and counts the rest. */
export function beatSql(table: string, id: string, ttlMs: number): string {
  return (
    `INSERT INTO ${table}_peers AS p (id, seen) VALUES ('${id}', ${NOW_MS}) ON CONFLICT (id) DO UPDATE SET seen = EXCLUDED.seen; ` +
    `DELETE FROM ${table}_peers WHERE seen < ${NOW_MS} - ${ttlMs}; SELECT count(*)::text AS n FROM ${table}_peers`
  );
}

/** parseState reads a float8[] text ('{1.5,-Infinity}') back to numbers; NULL is the empty state. */
export function parseState(text: string | null | undefined): Float64Array | undefined {
  if (text === null || text === undefined) return undefined;
  const inner = text.slice(1, -1);
  if (inner === '') return new Float64Array(0);
  const parts = inner.split(',');
  const state = new Float64Array(parts.length);
  for (let i = 0; i < parts.length; i++) state[i] = Number(parts[i]);
  return state;
}

/** PING asks whether the server answers at all (while a batch waits for a row lock: ../wire/batcher.ts). */
export const PING = 'SELECT 1';
