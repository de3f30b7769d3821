/**
 * Starts the NestJS example on 127.0.0.1, port from PORT (default 3000; 0 picks a free port), on the
 * platform PLATFORM names (express, the default, or fastify). The first line printed,
 * `listening on http://127.0.0.1:<port>`, names the real port: `pnpm demo` reads it.
 */
import { createApp } from './app.mjs';

const port = Number(process.env.PORT ?? 3000);
const platform = process.env.PLATFORM ?? 'express';
try {
  const app = await createApp({ platform });
  await app.listen(port, '127.0.0.1');
  console.log(`listening on http://127.0.0.1:${app.getHttpServer().address().port}`);
} catch (error) {
  console.error(`nestjs example: ${error.message}`);
  process.exit(1);
}
