/**
 * The schema on first use: unless `createTable: false`, the store's first request creates the tables
 * and the commit procedure when missing (./dialect.ts has the SQL, exported as `mysqlSchema` for teams
 * that run their own migrations). CREATE … IF NOT EXISTS makes processes starting together harmless.
 * MySQL 8 has no CREATE PROCEDURE IF NOT EXISTS (MariaDB has): on its syntax error the procedure is
 * created without the clause, and "already exists" (another process won the race) is success. A
 * failed creation (no privilege, the server down) fails that request, and the next one tries again.
 */
import type { MySqlPool } from '../wire/client.js';
import { schemaStatements } from './dialect.js';

const PARSE_ERROR = 1064;
const ALREADY_EXISTS = 1304;

export class Schema {
  readonly #pool: MySqlPool;
  readonly #statements: readonly string[];
  readonly #create: boolean;
  #done: Promise<void> | undefined;

  constructor(pool: MySqlPool, schema: string, create: boolean) {
    this.#pool = pool;
    this.#statements = schemaStatements(schema);
    this.#create = create;
  }

  /** ready resolves once the schema exists (at once with createTable: false). */
  ready(): Promise<void> {
    if (!this.#create) return Promise.resolve();
    if (this.#done === undefined) {
      this.#done = this.#run();
      this.#done.catch(() => {
        this.#done = undefined;
      });
    }
    return this.#done;
  }

  async #run(): Promise<void> {
    for (const statement of this.#statements) {
      try {
        await this.#pool.query(statement);
      } catch (error) {
        const errno = (error as { errno?: unknown }).errno;
        if (errno === ALREADY_EXISTS) continue;
        if (errno !== PARSE_ERROR || !statement.includes('PROCEDURE IF NOT EXISTS')) throw error;
        await this.#pool.query(statement.replace('PROCEDURE IF NOT EXISTS', 'PROCEDURE')).catch((again: unknown) => {
          if ((again as { errno?: unknown }).errno !== ALREADY_EXISTS) throw again;
        });
      }
    }
  }
}
