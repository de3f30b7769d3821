// SQLite's contenders, each on its own file in a fresh temporary directory: the one-statement floor
// and rate-limiter-flexible's RateLimiterSQLite on better-sqlite3, and ratekeeper's SqliteStore
// (default options: its own connection to its file). The floor's file and rate-limiter-flexible's are
// opened with the settings SqliteStore gives its own (WAL, synchronous = NORMAL, a busy timeout), so
// that every row pays the same durability.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '@ratekeeper/sqlite';
import Database from 'better-sqlite3';
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import { LIMIT, WINDOW_MS, ratekeeperRows, rlfConsume, rlfPeek, rlfReady } from './_contenders.mjs';
import { ADMITTED, DENIED } from './_measure.mjs';

const open = (path) => {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  return db;
};

/** sqliteContenders answers { server, contenders, close() }. */
export async function sqliteContenders({ algorithms }) {
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-stores-'));
  const closers = [];
  const close = async () => {
    for (const c of closers) c();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const floor = open(join(dir, 'floor.sqlite'));
    closers.push(() => floor.close());
    const server = `SQLite ${floor.prepare('SELECT sqlite_version() AS v').get().v} (better-sqlite3)`;
    // The floor: a fixed window, one autocommit statement per decision on the process's clock. SQLite
    // takes the file's write lock for the statement, so it is exact across processes too, and
    // RETURNING answers the count this decision left.
    floor.exec('CREATE TABLE floor (k TEXT PRIMARY KEY, win INTEGER NOT NULL, n INTEGER NOT NULL)');
    const decide = floor.prepare(
      'INSERT INTO floor (k, win, n) VALUES (?, ?, 1) ON CONFLICT (k) DO UPDATE SET n = CASE WHEN win = excluded.win THEN n + 1 ELSE 1 END, win = excluded.win RETURNING n',
    );
    const probe = floor.prepare('SELECT n, win FROM floor WHERE k = ?');
    const rlfDb = open(join(dir, 'rlf.sqlite'));
    closers.push(() => rlfDb.close());
    let rlf;
    await rlfReady((cb) => {
      rlf = new RateLimiterSQLite({ storeClient: rlfDb, storeType: 'better-sqlite3', tableName: 'rlf', points: LIMIT, duration: WINDOW_MS / 1000 }, cb);
    });
    const stores = [];
    closers.push(() => {
      for (const s of stores) s.close();
    });
    const contenders = [
      {
        id: 'floor-sqlite',
        label: 'floor (better-sqlite3)',
        role: 'floor',
        client: 'better-sqlite3',
        driver: 'better-sqlite3',
        consume: (key) => (decide.get(key, Math.floor(Date.now() / WINDOW_MS)).n <= LIMIT ? ADMITTED : DENIED),
        peek: (key) => {
          probe.get(key);
          return ADMITTED;
        },
      },
      {
        id: 'rlf-sqlite',
        label: 'rate-limiter-flexible (better-sqlite3)',
        role: 'rlf',
        client: 'better-sqlite3',
        driver: 'better-sqlite3',
        floor: 'floor-sqlite',
        consume: rlfConsume(rlf),
        peek: rlfPeek(rlf),
      },
      ...ratekeeperRows({
        algorithms,
        client: 'better-sqlite3',
        driver: 'better-sqlite3',
        floor: 'floor-sqlite',
        storeFor: (a) => {
          const store = new SqliteStore({ path: join(dir, `rk-${a}.sqlite`) });
          stores.push(store);
          return store;
        },
      }),
    ];
    return { name: 'SQLite', server, settings: `files in ${dir}: WAL, synchronous NORMAL`, contenders, close };
  } catch (error) {
    await close();
    throw error;
  }
}
