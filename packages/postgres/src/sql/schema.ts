/**
 * The schema: created on first use (once per store, by the first batch that needs it) unless
 * `createTable: false`, and published as text for teams that run their own migrations
 * (postgresSchema).
 * Concurrent creators wait on an advisory lock instead of colliding (./sql.ts, createSql).
 */
import type { Db } from '../wire/client.js';
import { DEFAULT_TABLE, tableName } from '../options.js';
import { createSql, schemaSql } from './sql.js';

/** postgresSchema is the SQL that creates a PostgresStore's tables on `table` (default 'ratekeeper'). */
export function postgresSchema(table: string = DEFAULT_TABLE, options: { readonly unlogged?: boolean } = {}): string {
  return schemaSql(tableName('postgresSchema', table), options.unlogged === true);
}

/** Schema creates the tables once; a failed creation is tried again by the next call. */
export class Schema {
  readonly #db: Db;
  readonly #sql: string | undefined;
  #ready: Promise<void> | undefined;

  constructor(db: Db, table: string, create: boolean, unlogged: boolean) {
    this.#db = db;
    this.#sql = create ? createSql(table, unlogged) : undefined;
  }

  /** ready resolves once the tables exist (at once when the store does not create them). */
  ready(): Promise<void> {
    if (this.#sql === undefined) return Promise.resolve();
    const sql = this.#sql;
    this.#ready ??= this.#db
      .rerun(() => this.#create(sql))
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }

  /** create runs the schema's transaction on a connection of its own (postgres.js allows BEGIN on no other); a killed connection runs it again (an administrator's kill is told to the store: ../wire/client.ts). */
  async #create(sql: string): Promise<void> {
    const session = await this.#db.session();
    try {
      await session.query(sql);
      session.release(false);
    } catch (error) {
      session.release(true);
      throw error;
    }
  }
}
