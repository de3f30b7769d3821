// Section sqlite/parts: where a SqliteStore decision's time goes, measured on better-sqlite3 directly
// with the store's own settings (WAL, synchronous NORMAL) and the shape of its rk_state table (a
// WITHOUT ROWID table keyed by policy and key), one hot row. Each row is one transaction shape, timed
// back to back for --sqlite-ms (default 300) in --sqlite-rounds (default 5) interleaved rounds; the
// table gives the median µs per transaction. The rows take the store's transaction apart: an empty
// immediate transaction (the locks and the commit), a read of the row, the write of its state alone, and
// the write of the state with the two indexed columns the store keeps (expires_at for the expiry sweep,
// fill for the eviction order), with and without those indexes; and, for scale, the same write as one
// autocommit statement (no explicit transaction, the shape of a one-statement store) on the same table.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { flags, intFlag } from '../lib/args.mjs';
import { median } from '../lib/stats.mjs';
import { fixed, formatTable } from '../lib/table.mjs';

const TABLE = `CREATE TABLE s (policy TEXT NOT NULL, key BLOB NOT NULL, state BLOB NOT NULL, expires_at REAL NOT NULL, fill REAL NOT NULL, PRIMARY KEY (policy, key)) WITHOUT ROWID`;
const INDEXES = 'CREATE INDEX s_expiry ON s (policy, expires_at); CREATE INDEX s_room ON s (policy, fill, expires_at);';

function open(dir, name, indexed) {
  const db = new Database(join(dir, `${name}.sqlite`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(TABLE);
  if (indexed) db.exec(INDEXES);
  db.prepare('INSERT INTO s VALUES (?, ?, ?, ?, ?)').run('p', Buffer.from('hot'), Buffer.alloc(8), 1, 0.5);
  return db;
}

/** shapes builds each row's transaction on its own file. */
function shapes(dir) {
  const key = Buffer.from('hot');
  const state = Buffer.alloc(8);
  let i = 0;
  const rows = [];
  for (const indexed of [true, false]) {
    const db = open(dir, `parts-${indexed}`, indexed);
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const read = db.prepare('SELECT state FROM s WHERE policy = ? AND key = ?');
    const writeAll = db.prepare('UPDATE s SET state = ?, expires_at = ?, fill = ? WHERE policy = ? AND key = ?');
    const writeState = db.prepare('UPDATE s SET state = ? WHERE policy = ? AND key = ?');
    const with_ = indexed ? 'with the two indexes' : 'without indexes';
    if (indexed) {
      rows.push(['empty immediate transaction (locks + commit)', db, () => (begin.run(), commit.run())]);
      rows.push(['+ read the row', db, () => (begin.run(), read.get('p', key), commit.run())]);
    }
    rows.push([
      `+ write state, expires_at and fill (the store's write), ${with_}`,
      db,
      () => {
        begin.run();
        read.get('p', key);
        state.writeDoubleLE(++i);
        writeAll.run(state, i, (i % 100) / 100, 'p', key);
        commit.run();
      },
    ]);
    rows.push([
      `+ write the state alone, ${with_}`,
      db,
      () => {
        begin.run();
        read.get('p', key);
        state.writeDoubleLE(++i);
        writeState.run(state, 'p', key);
        commit.run();
      },
    ]);
    if (indexed)
      rows.push(['one autocommit statement writing all three, with the two indexes', db, () => (state.writeDoubleLE(++i), writeAll.run(state, i, (i % 100) / 100, 'p', key))]);
  }
  return rows;
}

function time(run, ms) {
  const start = performance.now();
  let n = 0;
  let now = start;
  while (now - start < ms) {
    for (let k = 0; k < 100; k++) run();
    n += 100;
    now = performance.now();
  }
  return ((now - start) * 1000) / n;
}

export async function run(args) {
  const f = flags(args);
  const rounds = intFlag(f, 'sqlite-rounds', 5);
  const ms = intFlag(f, 'sqlite-ms', 300);
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-sqlite-parts-'));
  const rows = shapes(dir);
  const samples = rows.map(() => []);
  try {
    for (const [, , run] of rows) time(run, 50); // warm-up
    for (let round = 0; round < rounds; round++) for (const [i, [, , run]] of rows.entries()) samples[i].push(time(run, ms));
  } finally {
    for (const db of new Set(rows.map(([, db]) => db))) db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`sqlite/parts: one hot row, WAL, synchronous NORMAL, ${rounds} rounds of ${ms} ms per row (Node ${process.versions.node})`);
  console.log(
    formatTable(
      ['transaction', 'µs (median)'],
      rows.map(([name], i) => [name, fixed(median(samples[i]), 2)]),
    ),
  );
}
