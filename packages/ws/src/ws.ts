/**
 * messageLimit: per-message limits for a `ws` WebSocketServer. Built once with the options, it answers
 * a function that wraps each connection's message handler:
 *
 *   wss.on('connection', (socket, req) => socket.on('message', limit(socket, req, onMessage)));
 *
 * Each message is charged to the connection's key (its own by default; `key(req)` names a user, whose
 * budget every connection of that user shares, across processes on a shared store) before
 * `onMessage` sees it; a refused one is handled by the policy (meter.ts): dropped, dropped with a
 * warning frame, held with the socket paused (`delay`), and at the `closeAfter`th refusal the socket
 * is closed with 1008 (policy violation) and a reason.
 */
import type { IncomingMessage } from 'node:http';
import { connectionKey } from './connection-key.js';
import { byteCost, isCost } from './cost.js';
import { background, Meter, type Transport } from './meter.js';
import { type CommonLimitOptions, type LimitInfo, optionalFunction, settings } from './options.js';

/** The few members of a `ws` WebSocket this package uses. */
export interface WsSocket {
  send(data: string | Buffer): void;
  close(code?: number, reason?: string): void;
  pause(): void;
  resume(): void;
  once(event: 'close', listener: () => void): unknown;
}

export interface MessageLimitOptions extends CommonLimitOptions {
  /** The budget's key for a connection, from its upgrade request (a user); default: each connection its own. */
  readonly key?: (req: IncomingMessage) => string;
  /** A message's cost: 1 by default, `'bytes'` for its size, or a function of the message. */
  readonly cost?: 'bytes' | ((data: unknown, isBinary: boolean) => number);
  /** The warning frame of `action: 'warn'` (default: `{"error":"rate_limited","retryAfterSeconds":N}`). */
  readonly warning?: (info: LimitInfo) => string;
  /** The reason of the 1008 close (default 'rate limit exceeded'; at most 123 bytes). */
  readonly closeReason?: string;
}

/** MessageHandler: what `ws` calls for a message. */
export type MessageHandler<S> = (this: S, data: unknown, isBinary: boolean) => void;

/** LimitMessages: wraps a connection's handler, answering the listener to give `socket.on('message', …)`. */
export type LimitMessages = <S extends WsSocket>(socket: S, req: IncomingMessage, handler: MessageHandler<S>) => (data: unknown, isBinary: boolean) => void;

/** messageLimit validates `options` once and answers the wrapper (see the file comment). */
export function messageLimit(options: MessageLimitOptions): LimitMessages {
  const owner = 'messageLimit';
  const { settings: s, options: o } = settings(owner, options, ['key', 'cost', 'warning', 'closeReason']);
  const keyOf = optionalFunction<(req: IncomingMessage) => string>(owner, 'key', o.key);
  const costOf = o.cost === 'bytes' ? byteCost : optionalFunction<(data: unknown, isBinary: boolean) => number>(owner, 'cost', o.cost);
  const warning = optionalFunction<(info: LimitInfo) => string>(owner, 'warning', o.warning) ?? defaultWarning;
  const reason = o.closeReason ?? 'rate limit exceeded';
  if (typeof reason !== 'string' || Buffer.byteLength(reason) > 123) throw new TypeError(`${owner}: closeReason must be a string of at most 123 bytes, got ${typeof reason}`);

  return function limitMessages(socket, req, handler) {
    const connection = connectionKey();
    const key = keyOf === undefined ? connection : keyOf(req);
    if (typeof key !== 'string') throw new TypeError(`${owner}: key must answer a string, got ${typeof key}`);
    const transport: Transport<unknown, boolean> = {
      deliver: (data, isBinary) => handler.call(socket, data, isBinary),
      warn: (info) => socket.send(warning(info)),
      close: () => socket.close(1008, reason),
      fail: () => socket.close(1011, 'rate limiter failed'),
      pause: () => socket.pause(),
      resume: () => socket.resume(),
    };
    const meter = new Meter(s, key, connection, transport);
    socket.once('close', () => {
      meter.closed();
      // A key made up for this connection is never seen again: its state goes now, not at eviction.
      if (keyOf === undefined) background(s.limiter.reset(connection));
      if (s.perConnection !== undefined) background(s.perConnection.reset(connection));
    });
    if (costOf === undefined) return (data, isBinary) => meter.offer(data, isBinary, 1);
    return (data, isBinary) => {
      const cost = costOf(data, isBinary);
      if (isCost(cost)) meter.offer(data, isBinary, cost);
      else socket.close(1011, 'invalid message cost');
    };
  };
}

function defaultWarning(info: LimitInfo): string {
  return info.retryAfterSeconds === undefined ? '{"error":"rate_limited"}' : `{"error":"rate_limited","retryAfterSeconds":${info.retryAfterSeconds}}`;
}
