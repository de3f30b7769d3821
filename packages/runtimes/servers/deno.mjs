// Deno.serve around the scenarios: the address from `info.remoteAddr`, Hono's from `hono/deno`.
// With REDIS_PORT set, the `redis` scenario counts in a real Redis through ioredis. Prints the port.
import { getConnInfo } from 'hono/deno';
import { scenarios } from './scenarios.mjs';
import { redisScenario } from './redis.mjs';

const port = Deno.env.get('REDIS_PORT');
const extra = port ? await redisScenario(Number(port)) : {};
const handle = scenarios({ getConnInfo, extra });
Deno.serve(
  { port: 0, hostname: '127.0.0.1', onListen: ({ port }) => console.log(`listening ${port}`), onError: () => new Response('Internal Server Error', { status: 500 }) },
  (request, info) => handle(request, info.remoteAddr.hostname, info),
);
