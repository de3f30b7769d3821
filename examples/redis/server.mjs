/**
 * Starts one Redis example server on 127.0.0.1: PORT (default 3000; 0 picks a free port), REDIS_URL
 * (default redis://127.0.0.1:6379), SERVER_NAME (default "server-<pid>"). The first line printed,
 * `listening on http://127.0.0.1:<port>`, names the real port: demo.mjs and the test read it.
 *
 * It waits up to one second for Redis before listening, so that the first requests find a connection
 * rather than the 50 ms timeout; without Redis it listens anyway and serves by the fallback.
 */
import { Redis } from 'ioredis';
import { createApp } from './app.mjs';

const name = process.env.SERVER_NAME ?? `server-${process.pid}`;
const client = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { retryStrategy: () => 100 });
client.on('error', () => {}); // the store reports failures itself; ioredis would log each reconnect attempt

await Promise.race([client.ping().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000))]);

const server = createApp({ client, name }).listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
server.on('error', (error) => {
  console.error(`redis example: ${error.message}`);
  process.exit(1);
});
process.on('SIGTERM', () => {
  server.close();
  client.disconnect();
});
