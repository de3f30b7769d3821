// PostgreSQL's contenders: the one-statement floor on pg and on postgres.js, rate-limiter-flexible's
// RateLimiterPostgres (pg; it has no postgres.js store), and ratekeeper's PostgresStore on both
// clients, each on its own table. One pg Pool and one postgres.js `sql` of POOL_SIZE connections are
// shared by the contenders of their client: the rounds run one contender at a time, and a pool that
// stays busy never pays for reconnecting inside a slice (pg closes a connection idle for 10 s).
// Needs PostgreSQL on 127.0.0.1:5432 (database test, user root), or PGHOST/PGPORT/PGUSER/PGDATABASE.
import { PostgresStore } from '@ratekeeper/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { LIMIT, POOL_SIZE, WINDOW_MS, ratekeeperRows, rlfConsume, rlfPeek, rlfReady } from './_contenders.mjs';
import { ADMITTED, DENIED } from './_measure.mjs';

const CONNECTION = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'root',
  database: process.env.PGDATABASE ?? 'test',
};

// The floor: a fixed window, one statement per decision on the server's clock. ON CONFLICT … DO UPDATE
// locks the row, so concurrent decisions on a key are applied one after the other, and RETURNING
// answers the count this decision left: exact, without a read-then-write race.
const floorTable = (t) => `CREATE TABLE ${t} (key text PRIMARY KEY, win bigint NOT NULL, n integer NOT NULL)`;
const floorDecide = (t) => `INSERT INTO ${t} AS r (key, win, n)
  VALUES ($1, div((extract(epoch FROM clock_timestamp()) * 1000)::bigint, ${WINDOW_MS}), 1)
  ON CONFLICT (key) DO UPDATE SET n = CASE WHEN r.win = excluded.win THEN r.n + 1 ELSE 1 END, win = excluded.win
  RETURNING n`;
const floorProbe = (t) => `SELECT n, win FROM ${t} WHERE key = $1`;

/** postgresContenders answers { server, contenders, close() }; tables are named `${prefix}…`. */
export async function postgresContenders({ prefix, algorithms }) {
  const pool = new pg.Pool({ ...CONNECTION, max: POOL_SIZE });
  pool.on('error', () => {});
  const sql = postgres({ ...CONNECTION, max: POOL_SIZE, onnotice: () => {} });
  const close = async () => {
    await dropAll(pool, prefix).catch((e) => console.error(`stores: could not drop the ${prefix}* tables: ${e.message}`));
    await pool.end();
    // postgres.js's reserve() does not look at end(): a PostgresStore's periodic work (it reserves a
    // connection for its transactions) would open a new connection on the ended `sql` and keep the
    // process alive for ever. The stores have no close(), so the measured client is made to refuse.
    sql.reserve = () => Promise.reject(new Error('stores: this postgres.js client has ended'));
    await sql.end({ timeout: 1 });
  };
  try {
    const server = `PostgreSQL ${(await pool.query('SHOW server_version')).rows[0].server_version}`;
    const setting = async (name) => `${name} ${(await pool.query(`SHOW ${name}`)).rows[0][name]}`;
    const settings = [await setting('synchronous_commit'), await setting('fsync')].join(', ');
    const t = (name) => `${prefix}${name}`;
    await pool.query(floorTable(t('floor_pg')));
    await pool.query(floorTable(t('floor_pjs')));
    // A named statement: parsed and planned once per connection, as rate-limiter-flexible's upsert is;
    // postgres.js prepares every query by default.
    const decidePg = { name: 'floor-decide', text: floorDecide(t('floor_pg')) };
    const probePg = { name: 'floor-probe', text: floorProbe(t('floor_pg')) };
    const decidePjs = floorDecide(t('floor_pjs'));
    const probePjs = floorProbe(t('floor_pjs'));
    const verdict = (n) => (n <= LIMIT ? ADMITTED : DENIED);
    const rlfTable = t('rlf');
    let rlf;
    await rlfReady((cb) => {
      rlf = new RateLimiterPostgres({ storeClient: pool, tableName: rlfTable, points: LIMIT, duration: WINDOW_MS / 1000 }, cb);
    });
    const contenders = [
      {
        id: 'floor-pg',
        label: 'floor (pg)',
        role: 'floor',
        client: 'pg',
        driver: 'pg',
        consume: (key) => pool.query({ ...decidePg, values: [key] }).then((r) => verdict(r.rows[0].n)),
        peek: (key) => pool.query({ ...probePg, values: [key] }).then(() => ADMITTED),
      },
      {
        id: 'floor-postgresjs',
        label: 'floor (postgres.js)',
        role: 'floor',
        client: 'postgres.js',
        driver: 'postgres.js',
        sql,
        consume: (key) => sql.unsafe(decidePjs, [key], { prepare: true }).then((r) => verdict(r[0].n)),
        peek: (key) => sql.unsafe(probePjs, [key], { prepare: true }).then(() => ADMITTED),
      },
      { id: 'rlf-pg', label: 'rate-limiter-flexible (pg)', role: 'rlf', client: 'pg', driver: 'pg', floor: 'floor-pg', consume: rlfConsume(rlf), peek: rlfPeek(rlf) },
    ];
    const [first, ...rest] = algorithms;
    const onPg = ratekeeperRows({ algorithms, client: 'pg', driver: 'pg', floor: 'floor-pg', storeFor: (a) => new PostgresStore({ client: pool, table: t(`rk_${a}_pg`) }) });
    const onPjs = ratekeeperRows({
      algorithms: [first],
      client: 'postgres.js',
      driver: 'postgres.js',
      sql,
      floor: 'floor-postgresjs',
      storeFor: (a) => new PostgresStore({ client: sql, table: t(`rk_${a}_pjs`) }),
    });
    // The first algorithm on both clients, side by side; the others on pg only.
    contenders.push(onPg[0], onPjs[0], ...onPg.slice(1, 1 + rest.length));
    return { name: 'PostgreSQL', server, settings, contenders, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** dropAll drops this run's tables and any routine a store made, found by name in the catalogue. */
async function dropAll(pool, prefix) {
  const like = `${prefix.replaceAll('_', '\\_')}%`;
  const routines = await pool.query('SELECT p.oid::regprocedure AS r FROM pg_proc p WHERE p.proname LIKE $1', [like]);
  for (const { r } of routines.rows) await pool.query(`DROP ROUTINE IF EXISTS ${r} CASCADE`);
  const tables = await pool.query("SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE tablename LIKE $1", [like]);
  if (tables.rows.length > 0) await pool.query(`DROP TABLE IF EXISTS ${tables.rows.map((r) => r.t).join(', ')} CASCADE`);
}
