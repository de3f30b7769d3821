/**
 * Starts the fetch example on Bun: `Bun.serve` on 127.0.0.1, the client address from
 * `server.requestIP`, port from PORT (default 3000; 0 picks a free port). Prints
 * `listening on http://127.0.0.1:<port>` first. Run it with `bun server.mjs`.
 */
import { createApp } from './app.mjs';

const handle = createApp();
const server = Bun.serve({
  port: Number(process.env.PORT ?? 3000),
  hostname: '127.0.0.1',
  fetch: (request, server) => handle(request, server.requestIP(request)?.address),
  error: () => new Response('Internal Server Error', { status: 500 }),
});
console.log(`listening on http://127.0.0.1:${server.port}`);
