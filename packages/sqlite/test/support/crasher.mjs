/**
 * A process to kill mid-transaction, run by test/crash.test.ts (under Node or Bun). It decides a
 * composite of two policies directly on the store's bindings (`consumeAll`): ADMITS requests, all
 * admitted, then one more whose second row write never finishes: the driver's statements that write
 * rk_rows are wrapped (its Database's `prepare`, the one the store loads: better-sqlite3 on Node,
 * bun:sqlite on Bun), and once armed the second write of a transaction (the first member's row already
 * written in it) writes the marker file with the number admitted and spins until the process is killed.
 * Argument: the build URL, the database path, the marker path.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fixedWindow, tokenBucket } from '@ratekeeper/core/store';

const [dist, path, marker] = process.argv.slice(2);
const { SqliteStore } = await import(dist);
const ADMITS = 200;

const onBun = typeof globalThis.Bun !== 'undefined';
const Database = onBun ? (await import('bun:sqlite')).Database : createRequire(new URL(dist))('better-sqlite3');
let admitted = 0;
let armed = false;
let writes = 0;
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function hooked(sql, ...rest) {
  const statement = prepare.call(this, sql, ...rest);
  if (!/^(UPDATE|INSERT INTO) rk_rows /.test(sql)) return statement;
  const run = statement.run.bind(statement);
  statement.run = (...params) => {
    if (armed && ++writes === 2) {
      writeFileSync(marker, String(admitted));
      for (;;);
    }
    return run(...params);
  };
  return statement;
};

const store = new SqliteStore({ path });
const bucket = store.bind(
  tokenBucket,
  Object.freeze({ algorithm: 'token-bucket', name: 'crash-a', capacity: 1000, refillPerSecond: 1e-6, intervalMs: 1e9, burstMs: 1e12, limit: 1000, windowMs: 1e12 }),
);
const window = store.bind(fixedWindow, Object.freeze({ algorithm: 'fixed-window', name: 'crash-b', limit: 1000, windowMs: 1e12 }));
const now = 1_700_000_000_000;
for (let i = 0; i < ADMITS; i++) if (store.consumeAll([bucket, window], 'k', now, 1, true).every((d) => d.allowed)) admitted++;
armed = true;
store.consumeAll([bucket, window], 'k', now, 1, true);
