/**
 * A ws server process for ../shared-user.test.ts: a WebSocketServer on a free loopback port whose
 * messages are limited per user (the `user` query parameter) on a RedisStore of DEFAULT options, with
 * the built @ratekeeper/ws (dist, or a mutant build given as argv[2]). Each handled message is echoed
 * `ok`; the first refusal closes the socket with 1008. It sends its port to the parent over IPC.
 * Plain JavaScript, so that it starts without a TypeScript loader.
 */
import { createServer } from 'node:http';
import { FixedWindowLimiter } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { WebSocketServer } from 'ws';

const dist = process.argv[3] ?? new URL('../../dist/esm/index.js', import.meta.url).href;
const { messageLimit } = await import(dist);
const client = new Redis({ host: '127.0.0.1', port: Number(process.argv[2]) });
const limiter = new FixedWindowLimiter({ limit: 10, windowMs: 3_600_000, name: 'per-user', store: new RedisStore({ client }) });
const limit = messageLimit({ limiter, key: (req) => new URL(req.url, 'http://x').searchParams.get('user'), closeAfter: 1 });
const http = createServer();
const wss = new WebSocketServer({ server: http });
wss.on('connection', (socket, req) =>
  socket.on(
    'message',
    limit(socket, req, () => socket.send('ok')),
  ),
);
http.listen(0, '127.0.0.1', () => process.send({ port: http.address().port }));
process.on('disconnect', () => process.exit(0));
