/**
 * The WebSocket example: a `ws` echo at /chat and a socket.io chat on one Node HTTP server, every
 * message charged with @ratekeeper/ws, and the WebSocket upgrades themselves limited.
 *
 * - ws, per connection: bursts of 5 messages, 2 a second after ("burst 5, sustained 2"); a refused
 *   message is dropped and the client warned once per streak (`{"error":"rate_limited",…}`), and the
 *   5th refusal closes the socket with 1008.
 * - socket.io, per socket and event: `chat` 3 at once, then 1 a second; every other event 20 at once,
 *   then 10 a second; refused events never reach a handler, and the client gets one `rate_limited`
 *   event per streak.
 * - upgrades (both): 10 a minute per client IP, answered 429 with Retry-After before the handshake.
 *
 * `clock` is injectable so the test can move time by hand; a server uses the system clock.
 */
import { createServer } from 'node:http';
import { FixedWindowLimiter, systemClock, TokenBucketLimiter } from '@ratekeeper/core';
import { eventLimit, limitUpgrades, messageLimit } from '@ratekeeper/ws';
import { Server } from 'socket.io';
import { WebSocketServer } from 'ws';

/** createApp builds the example's HTTP server (not listening), with its own limiters. */
export function createApp({ clock = systemClock } = {}) {
  const server = createServer((_req, res) => res.writeHead(404).end());

  const wss = new WebSocketServer({ noServer: true });
  const messages = messageLimit({ limiter: new TokenBucketLimiter({ capacity: 5, refillPerSecond: 2, name: 'messages', clock }), action: 'warn', closeAfter: 5 });
  wss.on('connection', (socket, req) => {
    socket.on(
      'message',
      messages(socket, req, (data) => socket.send(`echo: ${String(data)}`)),
    );
  });
  server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname === '/chat') wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const io = new Server(server);
  const events = eventLimit({
    limiter: new TokenBucketLimiter({ capacity: 20, refillPerSecond: 10, name: 'events', clock }),
    events: { chat: new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, name: 'chat', clock }) },
    action: 'warn',
  });
  io.on('connection', (socket) => {
    socket.use(events(socket));
    socket.on('chat', (text) => io.emit('chat', text));
    // Acknowledged once every event before it was decided (the demo waits on it).
    socket.on('sync', (ack) => typeof ack === 'function' && ack());
  });

  // Last, so that it guards the listeners of ws (above) and socket.io.
  limitUpgrades(server, { limiter: new FixedWindowLimiter({ limit: 10, windowMs: 60_000, name: 'upgrades', clock }) });
  server.on('close', () => wss.close());
  return { server, io };
}
