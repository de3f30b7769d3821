/**
 * Starts the GraphQL example on 127.0.0.1, port from PORT (default 4000; 0 picks a free port). The
 * first line printed, `listening on http://127.0.0.1:<port>`, names the real port: `pnpm demo` reads it.
 */
import { createApp } from './app.mjs';

const port = Number(process.env.PORT ?? 4000);
const server = await createApp();
server.listen(port, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
server.on('error', (error) => {
  console.error(`graphql example: ${error.message}`);
  process.exit(1);
});
