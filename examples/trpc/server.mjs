/**
 * Starts the tRPC example on 127.0.0.1, port from PORT (default 3000; 0 picks a free port). The first
 * line printed, `listening on http://127.0.0.1:<port>`, names the real port: `pnpm demo` reads it.
 */
import { createApp } from './app.mjs';

const port = Number(process.env.PORT ?? 3000);
const server = createApp().listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
server.on('error', (error) => {
  console.error(`trpc example: ${error.message}`);
  process.exit(1);
});
