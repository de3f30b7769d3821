// Statements per decision: how many statements a contender sends for one lone decision and for one
// probe. Counted at the driver, never inside a store, so that it holds whatever a store does inside:
// pg's Client#query (every pooled query goes through it), mysql2's Connection#query, #execute and #ping,
// better-sqlite3's Statement#run/#get/#all/#iterate and Database#exec, and postgres.js's `debug` hook
// (sql.options.debug, read by each connection as it sends a query). The hooks are installed only for
// the counting pass, after the timed rounds, and removed after it: no timed call goes through them.
// Background statements sent meanwhile on the same driver (any store's housekeeping or liveness
// checks, on the shared pool) are counted too: hence a floor's 1.02 beside ratekeeper's stores. A transaction's BEGIN and COMMIT are statements on PostgreSQL and MySQL;
// better-sqlite3's `db.transaction()` begins and commits natively, uncounted.
import Database from 'better-sqlite3';
import mysql from 'mysql2';
import pg from 'pg';

/** hook replaces `names` on `proto` by counting wrappers and answers a function that puts them back. */
function hook(proto, names, tally) {
  const originals = names.map((name) => [name, proto[name]]);
  for (const [name, original] of originals) {
    proto[name] = function counted(...args) {
      tally.n++;
      return original.apply(this, args);
    };
  }
  return () => {
    for (const [name, original] of originals) proto[name] = original;
  };
}

/** install starts counting for `driver` ('pg', 'postgres.js' with its `sql`, 'mysql2', 'better-sqlite3') and answers uninstall(). */
function install(driver, tally, sql) {
  switch (driver) {
    case 'pg':
      return hook(pg.Client.prototype, ['query'], tally);
    case 'mysql2':
      return hook(mysql.Connection.prototype, ['query', 'execute', 'ping'], tally);
    case 'better-sqlite3': {
      const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1'));
      const undoStatement = hook(statement, ['run', 'get', 'all', 'iterate'], tally);
      const undoExec = hook(Database.prototype, ['exec'], tally);
      return () => {
        undoStatement();
        undoExec();
      };
    }
    case 'postgres.js': {
      const previous = sql.options.debug;
      sql.options.debug = () => {
        tally.n++;
      };
      return () => {
        sql.options.debug = previous;
      };
    }
    default:
      return undefined;
  }
}

/**
 * countStatements makes `n` lone decisions and `n` probes one at a time on each contender that names
 * its driver, and answers { [id]: { consume, peek } } in statements per call (absent: not counted).
 */
export async function countStatements(contenders, keys, n = 100) {
  const out = {};
  for (const c of contenders) {
    const tally = { n: 0 };
    const uninstall = install(c.driver, tally, c.sql);
    if (uninstall === undefined) continue;
    try {
      const per = async (call) => {
        tally.n = 0;
        for (let i = 0; i < n; i++) await call(keys[i % keys.length]);
        return tally.n / n;
      };
      out[c.id] = { consume: await per(c.consume), peek: await per(c.peek) };
    } finally {
      uninstall();
    }
  }
  return out;
}
