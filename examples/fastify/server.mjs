/**
 * Starts the Fastify example on 127.0.0.1, port from PORT (default 3000; 0 picks a free port). The
 * first line printed, `listening on http://127.0.0.1:<port>`, names the real port: `pnpm demo` reads it.
 */
import { createApp } from './app.mjs';

const port = Number(process.env.PORT ?? 3000);
try {
  const app = await createApp();
  await app.listen({ port, host: '127.0.0.1' });
  console.log(`listening on http://127.0.0.1:${app.server.address().port}`);
} catch (error) {
  console.error(`fastify example: ${error.message}`);
  process.exit(1);
}
