/**
 * Starts the WebSocket example on 127.0.0.1, port from PORT (default 8080; 0 picks a free port): ws at
 * ws://127.0.0.1:<port>/chat, socket.io at its default path. The first line printed, `listening on
 * http://127.0.0.1:<port>`, names the real port: `pnpm demo` reads it.
 */
import { createApp } from './app.mjs';

const port = Number(process.env.PORT ?? 8080);
const { server } = createApp();
server.listen(port, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
server.on('error', (error) => {
  console.error(`websocket example: ${error.message}`);
  process.exit(1);
});
