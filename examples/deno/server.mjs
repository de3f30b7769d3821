/**
 * Starts the fetch example on Deno: `Deno.serve` on 127.0.0.1, the client address from
 * `info.remoteAddr`, port from PORT (default 3000; 0 picks a free port). Prints
 * `listening on http://127.0.0.1:<port>` first. Run it with
 * `deno run --allow-net --allow-env --allow-read server.mjs` (packages come from node_modules).
 */
import { createApp } from './app.mjs';

const handle = createApp();
Deno.serve(
  {
    port: Number(Deno.env.get('PORT') ?? 3000),
    hostname: '127.0.0.1',
    onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
    onError: () => new Response('Internal Server Error', { status: 500 }),
  },
  (request, info) => handle(request, info.remoteAddr.hostname),
);
