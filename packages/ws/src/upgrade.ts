/**
 * limitUpgrades: the WebSocket handshake itself limited. It takes over the HTTP server's 'upgrade'
 * listeners (a `ws` WebSocketServer's, socket.io's, or the application's own, attached before the
 * call) and lets an upgrade request reach them only once the limiter admits it; a refused one is
 * answered `429 Too Many Requests` on the raw socket, before any handshake, with `Retry-After` (whole
 * seconds, rounded up, never earlier than the truth), the IETF `RateLimit-Policy` and `RateLimit`
 * fields and core's problem+json body, and the socket is ended. A request without a usable client
 * address (and no `key`) is answered 500, never keyed into a shared bucket.
 *
 * The key is the client IP as the socket sees it (IPv6 grouped by /56, IPv4-mapped unwrapped: core's
 * `ipKey`), or `key(req)` (behind a proxy, or per API key). `limitUpgrades` answers a function that
 * puts the original listeners back.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type Decision, ipKey, limitedResponse, type RateLimiter, retryAfterSeconds } from '@ratekeeper/core';
import { limitField, policyField } from '@ratekeeper/core/adapter';
import { optionalFunction, optionsOf, typeError } from '@ratekeeper/core/adapter';

export interface UpgradeLimitOptions {
  /** The limiter upgrades spend, one unit each. */
  readonly limiter: RateLimiter;
  /** The key of an upgrade request (default: the client IP of its socket). */
  readonly key?: (req: IncomingMessage) => string | undefined;
}

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** limitUpgrades guards `server`'s current 'upgrade' listeners (see the file comment) and answers the undo. */
export function limitUpgrades(server: Server, options: UpgradeLimitOptions): () => void {
  const owner = 'limitUpgrades';
  const o = optionsOf(owner, options, ['limiter', 'key']);
  const limiter = o.limiter as RateLimiter;
  if (typeof limiter !== 'object' || limiter === null || typeof limiter.consume !== 'function') typeError(owner, 'limiter', 'a RateLimiter (from @ratekeeper/core)', o.limiter);
  const keyOf = optionalFunction<(req: IncomingMessage) => string | undefined>(owner, 'key', o.key) ?? ((req) => ipKey(req.socket.remoteAddress));
  const policy = policyField(limiter.policies);
  const listeners = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('upgrade');
  const pass = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    for (const listener of listeners) listener.call(server, req, socket, head);
  };
  const guard: UpgradeListener = function upgradeLimit(req, socket, head) {
    const key = keyOf(req);
    if (typeof key !== 'string') return refuse(socket, 'HTTP/1.1 500 Internal Server Error', []);
    const decided = limiter.consume(key, 1);
    const then = (d: Decision) => {
      if (d.allowed || d.failure === 'open') pass(req, socket, head);
      else answer(socket, d, policy);
    };
    if (decided instanceof Promise) decided.then(then, () => refuse(socket, 'HTTP/1.1 500 Internal Server Error', []));
    else then(decided);
  };
  server.on('upgrade', guard);
  return function restore() {
    server.off('upgrade', guard);
    for (const listener of listeners) server.on('upgrade', listener);
  };
}

function answer(socket: Duplex, decision: Decision, policy: string): void {
  const response = limitedResponse(decision);
  const seconds = retryAfterSeconds(decision);
  const headers = [
    `RateLimit-Policy: ${policy}`,
    `RateLimit: ${limitField(decision)}`,
    `Content-Type: ${response.contentType}`,
    `Content-Length: ${Buffer.byteLength(response.body)}`,
  ];
  if (seconds !== undefined && response.status === 429) headers.unshift(`Retry-After: ${seconds}`);
  refuse(socket, `HTTP/1.1 ${response.status} ${response.status === 429 ? 'Too Many Requests' : 'Service Unavailable'}`, headers, response.body);
}

function refuse(socket: Duplex, status: string, headers: readonly string[], body = ''): void {
  if (socket.destroyed) return;
  socket.end(`${status}\r\nConnection: close\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`);
}
