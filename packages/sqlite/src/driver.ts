/**
 * Drivers: the three synchronous SQLite bindings JavaScript runtimes offer, behind one small interface
 * (their own, bun:sqlite's `get` made to answer undefined): better-sqlite3 on Node (a native addon the
 * application installs: 12.x on Node 20), bun:sqlite on Bun, node:sqlite on Node 22.13 and later.
 * 'auto' (the default) takes bun:sqlite on Bun, else better-sqlite3 when installed, else node:sqlite.
 * One that cannot be loaded is refused at construction, by name and with the reason.
 */
import ownRequire from './own-require.cjs';

export type DriverName = 'better-sqlite3' | 'bun:sqlite' | 'node:sqlite';
export type DriverChoice = DriverName | 'auto';
export const DRIVERS: readonly DriverChoice[] = ['auto', 'better-sqlite3', 'bun:sqlite', 'node:sqlite'];

type Param = number | string | Uint8Array | null;
export interface Statement {
  run(...params: Param[]): { readonly changes: number | bigint };
  get(...params: Param[]): Record<string, unknown> | undefined;
  all(...params: Param[]): Record<string, unknown>[];
}
export interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  close(): unknown;
}
export interface Driver {
  readonly name: DriverName;
  open(path: string): Connection;
}

type Class = new (path: string, options?: object) => Connection;
/** Each driver's module and database class (bun:sqlite strict: parameters bind without a `$`; its null `get` made undefined). */
const CLASSES: Readonly<Record<DriverName, () => [Class, object?]>> = {
  // Its native addon loads at the first open: one built for another Node (a Node upgraded without a
  // rebuild) fails there, so a database in memory is opened here, and 'auto' goes on to the next.
  'better-sqlite3': () => {
    const Database = ownRequire('better-sqlite3') as Class;
    new Database(':memory:').close();
    return [Database];
  },
  'bun:sqlite': () => [ownRequire('bun:sqlite').Database, { create: true, readwrite: true, strict: true }],
  'node:sqlite': () => [ownRequire('node:sqlite').DatabaseSync],
};

/** loadDriver resolves a driver choice at construction; it throws a TypeError naming what is missing. */
export function loadDriver(owner: string, choice: DriverChoice): Driver {
  const node = `Node ${process.versions.node}`;
  const noNodeSqlite = () => (classOf('node:sqlite') instanceof Error ? 'has no node:sqlite (it needs Node 22.13 or later)' : 'has node:sqlite');
  if (choice === 'auto') {
    const found = (['bun:sqlite', 'better-sqlite3', 'node:sqlite'] as const).find((name) => (name !== 'bun:sqlite' || 'Bun' in globalThis) && !(classOf(name) instanceof Error));
    if (found !== undefined) return loadDriver(owner, found);
    throw new TypeError(`${owner}: no SQLite driver: install better-sqlite3 (12.x on Node 20), or run on Bun, or on Node 22.13+ with node:sqlite (${node} ${noNodeSqlite()})`);
  }
  if (choice === 'bun:sqlite' && !('Bun' in globalThis)) throw new TypeError(`${owner}: driver 'bun:sqlite' needs Bun, got ${node}`);
  const loaded = classOf(choice);
  if (loaded instanceof Error) {
    throw new TypeError(`${owner}: driver '${choice}' is not available: ${choice === 'node:sqlite' ? `${node} ${noNodeSqlite()}` : `cannot be loaded (${loaded.message})`}`);
  }
  const [Database, options] = loaded;
  return {
    name: choice,
    open(path) {
      try {
        const db = options === undefined ? new Database(path) : new Database(path, options);
        return choice === 'bun:sqlite' ? withUndefined(db) : db;
      } catch (error) {
        // better-sqlite3 checks the directory itself and throws a plain TypeError: SQLite's CANTOPEN ('access') all the same.
        throw typeof (error as { code?: unknown })?.code === 'string' ? error : Object.assign(new Error(`cannot open ${path}`, { cause: error }), { code: 'SQLITE_CANTOPEN' });
      }
    },
  };
}

/** classOf answers a driver's database class, or the Error that loading it threw. */
function classOf(name: DriverName): [Class, object?] | Error {
  try {
    const loaded = CLASSES[name]();
    if (typeof loaded[0] !== 'function') throw new Error('it exports no database class');
    return loaded;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** withUndefined makes a connection's `get` answer undefined, not null, when no row matches. */
function withUndefined(db: Connection): Connection {
  const prepare = db.prepare.bind(db);
  db.prepare = (sql) => {
    const statement = prepare(sql);
    const get = statement.get.bind(statement);
    return Object.assign(statement, { get: (...params: Param[]) => get(...params) ?? undefined });
  };
  return db;
}

/** quietly runs `run`, ignoring what it throws. */
export function quietly(run: () => unknown): void {
  try {
    run();
  } catch {}
}
