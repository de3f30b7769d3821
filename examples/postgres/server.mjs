/**
 * Starts one PostgreSQL example server on 127.0.0.1: PORT (default 3000; 0 picks a free port),
 * DATABASE_URL (default postgres://root@127.0.0.1:5432/test), RATEKEEPER_TABLE (default: the store's,
 * 'ratekeeper'), SERVER_NAME (default "server-<pid>"). The first line printed,
 * `listening on http://127.0.0.1:<port>`, names the real port: the test reads it.
 *
 * It waits up to one second for the database before listening, so that the first requests find a
 * connection; without the database it listens anyway and serves by the store's fallback.
 */
import pg from 'pg';
import { createApp } from './app.mjs';

const name = process.env.SERVER_NAME ?? `server-${process.pid}`;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test' });
pool.on('error', () => {}); // an idle connection that dies is reported here; the store reports its own failures

await Promise.race([pool.query('SELECT 1').catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000))]);

const server = createApp({ pool, name, table: process.env.RATEKEEPER_TABLE }).listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
server.on('error', (error) => {
  console.error(`postgres example: ${error.message}`);
  process.exit(1);
});
process.on('SIGTERM', () => {
  server.close();
  pool.end();
});
