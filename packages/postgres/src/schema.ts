/** postgresSchema: the SQL that makes a PostgresStore's tables, for teams that run their own migrations (`createTable: false`). */
import { DEFAULT_TABLE, tableName } from './options.js';
import { schemaSql } from './sql.js';

/** postgresSchema is the SQL that creates a PostgresStore's tables on `table` (default 'ratekeeper'). */
export function postgresSchema(table: string = DEFAULT_TABLE, options: { readonly unlogged?: boolean } = {}): string {
  return schemaSql(tableName('postgresSchema', table), options.unlogged === true);
}
