/**
 * Starts the Hono example on 127.0.0.1 with @hono/node-server, port from PORT (default 3000; 0 picks a
 * free port). The first line printed, `listening on http://127.0.0.1:<port>`, names the real port:
 * `pnpm demo` reads it.
 */
import { serve } from '@hono/node-server';
import { createApp } from './app.mjs';

const port = Number(process.env.PORT ?? 3000);
const server = serve({ fetch: createApp().fetch, port, hostname: '127.0.0.1' }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});
server.on('error', (error) => {
  console.error(`hono example: ${error.message}`);
  process.exit(1);
});
