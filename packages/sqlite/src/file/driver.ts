/**
 * Drivers: the three synchronous SQLite bindings JavaScript runtimes offer, behind one small interface
 * (prepare, run, get, all, exec, close), so that the store's SQL runs unchanged on each.
 *
 * - 'better-sqlite3' on Node (a native addon the application installs: 12.x on Node 20, since 13
 *   needs Node 22 and crashes Node 20),
 * - 'bun:sqlite' on Bun (built in),
 * - 'node:sqlite' where the runtime has it (Node 22.13 and later; Node 20 has none).
 *
 * 'auto' (the default) takes bun:sqlite on Bun, else better-sqlite3 when it is installed, else
 * node:sqlite when the runtime has it. A driver that cannot be loaded is refused at construction, by
 * name and with the reason, never at the first decision. Loading is synchronous: the store is.
 */
import ownRequire from './own-require.cjs';

export type DriverName = 'better-sqlite3' | 'bun:sqlite' | 'node:sqlite';
export type DriverChoice = DriverName | 'auto';
export const DRIVERS: readonly DriverChoice[] = ['auto', 'better-sqlite3', 'bun:sqlite', 'node:sqlite'];

export type Param = number | string | Uint8Array | null;
export type Row = Record<string, unknown>;

export interface Statement {
  run(...params: Param[]): { readonly changes: number | bigint };
  get(...params: Param[]): Row | undefined;
  all(...params: Param[]): Row[];
}

export interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}

export interface Driver {
  readonly name: DriverName;
  open(path: string): Connection;
}

type Opener = (path: string) => Connection;

/** loadDriver resolves a driver choice at construction; it throws a TypeError naming what is missing. */
export function loadDriver(owner: string, choice: DriverChoice): Driver {
  const onBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
  if (choice === 'auto') {
    if (onBun) return driver('bun:sqlite', load(owner, 'bun:sqlite'));
    const better = tryLoad('better-sqlite3');
    if (typeof better === 'function') return driver('better-sqlite3', better);
    const node = tryLoad('node:sqlite');
    if (typeof node === 'function') return driver('node:sqlite', node);
    throw new TypeError(
      `${owner}: no SQLite driver: install better-sqlite3 (12.x on Node 20), or run on Bun, or on Node 22.13+ with node:sqlite (Node ${process.versions.node} ${noNodeSqlite()})`,
    );
  }
  if (choice === 'bun:sqlite' && !onBun) throw new TypeError(`${owner}: driver 'bun:sqlite' needs Bun, got Node ${process.versions.node}`);
  return driver(choice, load(owner, choice));
}

function driver(name: DriverName, open: Opener): Driver {
  return { name, open };
}

function load(owner: string, name: DriverName): Opener {
  const opener = tryLoad(name);
  if (typeof opener === 'function') return opener;
  const why = name === 'node:sqlite' ? noNodeSqlite() : `cannot be loaded (${opener.message})`;
  throw new TypeError(`${owner}: driver '${name}' is not available: ${name === 'node:sqlite' ? `Node ${process.versions.node} ${why}` : why}`);
}

function noNodeSqlite(): string {
  return tryLoad('node:sqlite') instanceof Error ? 'has no node:sqlite (it needs Node 22.13 or later)' : 'has node:sqlite';
}

/** tryLoad answers an opener for `name`, or the Error that loading it threw. */
function tryLoad(name: DriverName): Opener | Error {
  try {
    if (name === 'better-sqlite3') return betterSqlite3(ownRequire('better-sqlite3'));
    if (name === 'bun:sqlite') return bunSqlite(ownRequire('bun:sqlite').Database);
    return nodeSqlite(ownRequire('node:sqlite').DatabaseSync);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

type Native = {
  prepare(sql: string): { run(...p: Param[]): { changes: number | bigint }; get(...p: Param[]): unknown; all(...p: Param[]): unknown[] };
  exec(sql: string): unknown;
  close(): unknown;
};

function betterSqlite3(Database: new (path: string) => Native): Opener {
  if (typeof Database !== 'function') throw new Error('better-sqlite3 exports no Database');
  return (path) => wrap(new Database(path));
}

function bunSqlite(Database: new (path: string, options: object) => Native): Opener {
  if (typeof Database !== 'function') throw new Error('bun:sqlite exports no Database');
  // strict: parameters bind without a `$` prefix, and a missing one is an error rather than NULL.
  return (path) => wrap(new Database(path, { create: true, readwrite: true, strict: true }));
}

function nodeSqlite(DatabaseSync: new (path: string) => Native): Opener {
  if (typeof DatabaseSync !== 'function') throw new Error('node:sqlite exports no DatabaseSync');
  return (path) => wrap(new DatabaseSync(path));
}

/** wrap gives every driver the same shape: `get` answers undefined (not bun's null) when no row matches. */
function wrap(db: Native): Connection {
  return {
    prepare(sql) {
      const statement = db.prepare(sql);
      return {
        run: (...params) => statement.run(...params),
        get: (...params) => (statement.get(...params) ?? undefined) as Row | undefined,
        all: (...params) => statement.all(...params) as Row[],
      };
    },
    exec: (sql) => void db.exec(sql),
    close: () => void db.close(),
  };
}
