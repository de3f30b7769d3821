// Bun.serve around the scenarios: the address from `server.requestIP`, Hono's from `hono/bun`.
// With REDIS_PORT set, the `redis` scenario counts in a real Redis through ioredis. Prints the port.
import { getConnInfo } from 'hono/bun';
import { scenarios } from './scenarios.mjs';
import { redisScenario } from './redis.mjs';

const extra = process.env.REDIS_PORT ? await redisScenario(Number(process.env.REDIS_PORT)) : {};
const handle = scenarios({ getConnInfo, extra });
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: (request, server) => handle(request, server.requestIP(request)?.address, server),
  error: () => new Response('Internal Server Error', { status: 500 }),
});
console.log(`listening ${server.port}`);
