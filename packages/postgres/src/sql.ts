/**
 * PostgreSQL's dialect: every SQL text PostgresStore sends, and nothing else. Statements go as plain
 * text over the simple query protocol, so one round trip carries several (BEGIN with the locks, the
 * write with COMMIT). No caller's value reaches a text as written: row ids are hex the kit made
 * (`decode('…','hex')`), states are numbers this file formats, and the table is a checked identifier,
 * always quoted (so a reserved word such as `user` is a table like any other).
 *
 * Times are server epoch milliseconds as float8, read with clock_timestamp() (the real time at the
 * moment of reading, not the transaction's start as now() would be); the kit takes their whole
 * millisecond. extra_float_digits 3 makes float8 text the shortest exact form whatever the session says.
 */
import type { RowRef, Write } from '@ratekeeper/core/store';

/** NOW_MS reads the server's clock in epoch milliseconds. */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::float8';

/** quoted is `table` (checked: options.ts) as a quoted, optionally schema-qualified, identifier. */
export function quoted(table: string): string {
  return table
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/**
 * schemaSql is the schema of a store on `table`: its rows (a row's `prev` and `op` are for the one
 * statement that decides a plain call: decideFunction), its expiry index, its peers, and that statement.
 */
export function schemaSql(table: string, unlogged = false): string {
  const kind = unlogged ? 'UNLOGGED TABLE' : 'TABLE';
  const name = table.replace(/^.*\./, '');
  const peers = quoted(`${table}_peers`);
  return [
    `CREATE ${kind} IF NOT EXISTS ${quoted(table)} (k bytea PRIMARY KEY, state float8[], expires_at float8 NOT NULL DEFAULT 0, prev float8[], op bigint);`,
    `CREATE INDEX IF NOT EXISTS "${name}_expires_at" ON ${quoted(table)} (expires_at);`,
    `CREATE ${kind} IF NOT EXISTS ${peers} (id text PRIMARY KEY, seen float8 NOT NULL);`,
    decideFunction(table),
    '',
  ].join('\n');
}

/**
 * decideFunction is the one statement that decides a plain consume (a rate limit's, no ban, no lease;
 * a plain peek is peekSql) in one round trip: the verdict and next state of core's token bucket (alg 1), fixed
 * window (2) and sliding window (3), ported operation for operation in float8 (IEEE doubles, as
 * JavaScript computes), on the row locked FOR UPDATE, at the server's clock in whole milliseconds (or
 * the caller's). The caller runs core's own step on the state it answers and checks what it wrote
 * (core's batcher.ts). Past `deadline` it changes nothing (expired). `token` names the call: the row
 * keeps the last writer's token and [its instant, the state it decided on] (`op`, `prev`), so a call
 * sent again after a lost reply answers as applied rather than applying twice.
 */
function decideFunction(table: string): string {
  const t = quoted(table);
  return `CREATE OR REPLACE FUNCTION ${quoted(`${table}_decide`)}(key bytea, alg int, p1 float8, p2 float8, cost float8, client_at float8, deadline float8, token bigint, wait_ms int)
RETURNS TABLE(s text, at text, w text, expired boolean, replayed boolean) LANGUAGE plpgsql AS $f$
DECLARE cur float8[]; nxt float8[]; last bigint; before float8[]; now_ms float8; expiry float8;
  u float8; tat float8; e float8; tt float8; base float8; st float8; cnt float8; prv float8;
BEGIN
  PERFORM set_config('extra_float_digits', '3', true), set_config('lock_timeout', wait_ms::text, true);
  now_ms := coalesce(client_at, floor(extract(epoch from clock_timestamp()) * 1000));
  IF now_ms >= deadline THEN RETURN QUERY SELECT NULL::text, now_ms::text, NULL::text, true, false; RETURN; END IF;
  SELECT r.state, r.op, r.prev INTO cur, last, before FROM ${t} r WHERE r.k = key FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO ${t} (k) VALUES (key) ON CONFLICT (k) DO NOTHING;
    SELECT r.state, r.op, r.prev INTO cur, last, before FROM ${t} r WHERE r.k = key FOR UPDATE;
  ELSIF last = token THEN
    RETURN QUERY SELECT (CASE WHEN array_length(before, 1) > 1 THEN before[2:] END)::text, before[1]::text, NULL::text, false, true; RETURN;
  END IF;
  IF alg = 1 THEN
    u := now_ms / p1; tat := coalesce(cur[1], u); e := tat - p2;
    tt := CASE WHEN u > e THEN u ELSE e END; base := CASE WHEN tat > tt THEN tat ELSE tt END;
    IF cost <= p2 AND (base + (cost - p2)) - tt <= (abs(base) + p2) * '2.220446049250313e-16'::float8 THEN nxt := ARRAY[base + cost]; expiry := ceil((base + cost) * p1) + 1; END IF;
  ELSE
    st := floor(now_ms / p1) * p1; tt := now_ms; prv := 0; cnt := 0;
    IF cur IS NOT NULL THEN
      IF st < cur[1] THEN st := cur[1]; tt := cur[1]; END IF;
      IF alg = 2 THEN IF st = cur[1] THEN cnt := cur[2]; END IF;
      ELSIF st = cur[1] THEN prv := cur[2]; cnt := cur[3];
      ELSIF st = cur[1] + p1 THEN prv := cur[3]; END IF;
    END IF;
    IF alg = 2 AND cnt + cost <= p2 THEN nxt := ARRAY[st, cnt + cost]; expiry := st + p1;
    ELSIF alg = 3 AND cost <= p2 AND prv * (p1 - (tt - st)) + (cnt + cost) * p1 <= p2 * p1 THEN nxt := ARRAY[st, prv, cnt + cost]; expiry := st + 2 * p1; END IF;
  END IF;
  IF nxt IS NOT NULL THEN UPDATE ${t} SET state = nxt, expires_at = expiry, prev = ARRAY[now_ms] || cur, op = token WHERE k = key; END IF;
  RETURN QUERY SELECT cur::text, now_ms::text, nxt::text, false, false;
END $f$;`;
}

/** peekSql reads one row's state at the server's clock (or the caller's, $2), for a plain peek: one statement, no lock. */
export function peekSql(table: string): string {
  return (
    `SELECT r.state::text AS s, c.at::text AS at, NULL::text AS w, c.at >= $3::float8 AS expired, false AS replayed ` +
    `FROM (SELECT coalesce($2::float8, floor(${NOW_MS})) AS at) c LEFT JOIN ${quoted(table)} r ON r.k = $1::bytea`
  );
}

/** DECIDE is the call of `table`'s decideFunction, with its parameters. */
export function decideSql(table: string): string {
  return `SELECT s, at, w, expired, replayed FROM ${quoted(`${table}_decide`)}($1::bytea, $2::int, $3::float8, $4::float8, $5::float8, $6::float8, $7::float8, $8::bigint, $9::int)`;
}

/** createSql creates the schema once for every process that starts at the same time (an advisory lock makes them wait, not collide). */
export function createSql(table: string, unlogged: boolean): string {
  return `BEGIN; SELECT pg_advisory_xact_lock(hashtext('ratekeeper:${table}')); ${schemaSql(table, unlogged)} COMMIT`;
}

/** number is a state number as SQL text: JavaScript's shortest exact form, which float8 reads back exactly. */
function number(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return "'Infinity'::float8";
  if (value === Number.NEGATIVE_INFINITY) return "'-Infinity'::float8";
  if (Object.is(value, -0)) return "'-0'::float8";
  return `${value}::float8`;
}

function stateText(state: ArrayLike<number> | undefined): string {
  if (state === undefined) return 'NULL::float8[]';
  const parts: string[] = [];
  for (let i = 0; i < state.length; i++) parts.push(number(state[i] as number));
  return `ARRAY[${parts.join(',')}]::float8[]`;
}

/**
 * lockSql opens the transaction, bounds its lock waits, and locks every row of `refs` (sorted,
 * distinct), inserting the missing ones, in id order; it answers each row's state with the transaction
 * id (the fate token) and the server's clock read after the rows were locked.
 */
export function lockSql(table: string, refs: readonly RowRef[], lockWaitMs: number): string {
  const values = refs.map((ref) => `(decode('${ref.id}','hex'))`).join(',');
  return (
    `BEGIN; SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockWaitMs))}; SET LOCAL extra_float_digits = 3; ` +
    `WITH u AS (INSERT INTO ${quoted(table)} AS t (k) VALUES ${values} ON CONFLICT (k) DO UPDATE SET k = t.k RETURNING t.k, t.state) ` +
    `SELECT encode(k,'hex') AS k, state::text AS s, txid_current()::text AS x, ${NOW_MS}::text AS now FROM u`
  );
}

/**
 * commitSql writes every changed row and commits, in one round trip, only if the server's clock has not
 * reached `deadline`: the check is one InitPlan evaluated once before any row is written, so all rows
 * are written or none, and COMMIT follows at once on the server. It answers how many rows it wrote.
 */
export function commitSql(table: string, writes: readonly Write[], deadline: number): string {
  const values = writes.map((w) => `(decode('${w.ref.id}','hex'),${stateText(w.state)},${number(w.expiresAt)})`).join(',');
  return (
    `WITH w AS (UPDATE ${quoted(table)} AS t SET state = v.s, expires_at = v.e FROM (VALUES ${values}) AS v(k, s, e) ` +
    `WHERE t.k = v.k AND (SELECT ${NOW_MS} < ${deadline}) RETURNING 1) SELECT count(*)::text AS n, ${NOW_MS}::text AS now FROM w; COMMIT`
  );
}

export const ROLLBACK = 'ROLLBACK';
export const TIME = `SELECT ${NOW_MS}::text AS now`;

/** statusSql asks the fate of transaction `txid`: 'committed', 'aborted' or 'in progress'. */
export function statusSql(txid: string): string {
  return `SELECT txid_status(${BigInt(txid).toString()})::text AS status`;
}

/** sweepSql deletes up to `limit` rows empty before `before`, through the expiry index, skipping rows a transaction holds. */
export function sweepSql(table: string, before: number, limit: number): string {
  const t = quoted(table);
  return `WITH d AS (DELETE FROM ${t} WHERE k IN (SELECT k FROM ${t} WHERE expires_at < ${number(before)} ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED) RETURNING 1) SELECT count(*)::text AS n FROM d`;
}

/** beatSql records peer `id` (hex) at the server's clock, forgets the members unseen for `ttlMs`, and counts the rest. */
export function beatSql(table: string, id: string, ttlMs: number): string {
  const peers = quoted(`${table}_peers`);
  return (
    `INSERT INTO ${peers} AS p (id, seen) VALUES ('${id}', ${NOW_MS}) ON CONFLICT (id) DO UPDATE SET seen = EXCLUDED.seen; ` +
    `DELETE FROM ${peers} WHERE seen < ${NOW_MS} - ${ttlMs}; SELECT count(*)::text AS n FROM ${peers}`
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
