// MySQL/MariaDB's contenders: the one-statement floor, rate-limiter-flexible's RateLimiterMySQL and
// ratekeeper's MySqlStore, each on its own table, all on one mysql2 pool of POOL_SIZE connections
// (callback API: what RateLimiterMySQL takes; the floor uses its promise wrapper), shared as on
// PostgreSQL (./_postgres.mjs). Needs MariaDB or MySQL 8 at RATEKEEPER_MYSQL_URL (default
// mysql://root@127.0.0.1:3306/test).
import { MySqlStore } from '@ratekeeper/mysql';
import mysql from 'mysql2';
import { RateLimiterMySQL } from 'rate-limiter-flexible';
import { LIMIT, POOL_SIZE, WINDOW_MS, ratekeeperRows, rlfConsume, rlfPeek, rlfReady } from './_contenders.mjs';
import { ADMITTED, DENIED } from './_measure.mjs';

const URL = process.env.RATEKEEPER_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

// The floor: a fixed window, one statement per decision on the server's clock. The upsert locks the
// row, and LAST_INSERT_ID(expr) hands the count this decision left back in the statement's own OK
// packet (mysql2's insertId): exact, one round trip, no read after the write. (`n` is assigned before
// `win`, so it still sees the row's old window.)
const floorTable = (t) => `CREATE TABLE \`${t}\` (k VARCHAR(255) NOT NULL PRIMARY KEY, win BIGINT NOT NULL, n BIGINT NOT NULL) ENGINE=InnoDB`;
const floorDecide = (t) => `INSERT INTO \`${t}\` (k, win, n) VALUES (?, FLOOR(UNIX_TIMESTAMP(NOW(3)) * 1000 / ${WINDOW_MS}), LAST_INSERT_ID(1))
  ON DUPLICATE KEY UPDATE n = LAST_INSERT_ID(IF(win = VALUES(win), n + 1, 1)), win = VALUES(win)`;
const floorProbe = (t) => `SELECT n, win FROM \`${t}\` WHERE k = ?`;

/** mysqlContenders answers { server, contenders, close() }; tables are named `${prefix}…`. */
export async function mysqlContenders({ prefix, algorithms }) {
  const pool = mysql.createPool({ uri: URL, connectionLimit: POOL_SIZE });
  const promised = pool.promise();
  const close = async () => {
    await dropAll(promised, prefix).catch((e) => console.error(`stores: could not drop the ${prefix}* tables: ${e.message}`));
    await new Promise((resolve) => pool.end(resolve));
  };
  try {
    const [[{ v }]] = await promised.query('SELECT VERSION() AS v');
    const server = `${/mariadb/i.test(v) ? 'MariaDB' : 'MySQL'} ${v}`;
    const [[{ db, flush }]] = await promised.query('SELECT DATABASE() AS db, @@innodb_flush_log_at_trx_commit AS flush');
    const settings = `innodb_flush_log_at_trx_commit ${flush}`;
    const t = (name) => `${prefix}${name}`;
    await promised.query(floorTable(t('floor')));
    const decide = floorDecide(t('floor'));
    const probe = floorProbe(t('floor'));
    let rlf;
    await rlfReady((cb) => {
      rlf = new RateLimiterMySQL({ storeClient: pool, dbName: db, tableName: t('rlf'), points: LIMIT, duration: WINDOW_MS / 1000 }, cb);
    });
    const contenders = [
      {
        id: 'floor-mysql2',
        label: 'floor (mysql2)',
        role: 'floor',
        client: 'mysql2',
        driver: 'mysql2',
        consume: (key) => promised.query(decide, [key]).then(([r]) => (r.insertId <= LIMIT ? ADMITTED : DENIED)),
        peek: (key) => promised.query(probe, [key]).then(() => ADMITTED),
      },
      {
        id: 'rlf-mysql2',
        label: 'rate-limiter-flexible (mysql2)',
        role: 'rlf',
        client: 'mysql2',
        driver: 'mysql2',
        floor: 'floor-mysql2',
        consume: rlfConsume(rlf),
        peek: rlfPeek(rlf),
      },
      ...ratekeeperRows({ algorithms, client: 'mysql2', driver: 'mysql2', floor: 'floor-mysql2', storeFor: (a) => new MySqlStore({ client: pool, table: t(`rk_${a}`) }) }),
    ];
    return { name: 'MySQL', server, settings, contenders, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** dropAll drops this run's tables and any routine a store made, found by name in the catalogue. */
async function dropAll(db, prefix) {
  const like = `${prefix.replaceAll('_', '\\_')}%`;
  const [routines] = await db.query(
    'SELECT routine_type AS type, routine_name AS name FROM information_schema.routines WHERE routine_schema = DATABASE() AND routine_name LIKE ?',
    [like],
  );
  for (const { type, name } of routines) await db.query(`DROP ${type === 'FUNCTION' ? 'FUNCTION' : 'PROCEDURE'} IF EXISTS \`${name}\``);
  const [tables] = await db.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE ?', [like]);
  if (tables.length > 0) await db.query(`DROP TABLE IF EXISTS ${tables.map((r) => `\`${r.name}\``).join(', ')}`);
}
