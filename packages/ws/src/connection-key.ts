/**
 * Keys for connections: each connection its own, unique across the processes sharing a store (a
 * random prefix per process, then a counter), so that two sockets never share a per-connection budget,
 * nor do sessions multiplexed over one socket (socket.io namespaces each get their own).
 */
import { randomBytes } from 'node:crypto';

const PROCESS = randomBytes(6).toString('base64url');
let next = 0;

/** connectionKey answers a key no other connection of any process has. */
export function connectionKey(): string {
  return `conn:${PROCESS}:${(next++).toString(36)}`;
}
