/**
 * eventLimit: per-event limits for socket.io v4, as a middleware for `socket.use`:
 *
 *   io.on('connection', (socket) => socket.use(limit(socket)));
 *
 * Each incoming event is charged to the socket's key (its own by default: every socket, so every
 * namespace multiplexed on one connection, has its own budget; `key(socket)` names a user whose budget
 * all of that user's sockets share, across processes on a shared store), on `events[name]` when the
 * event has its own limiter, else on `limiter`. An admitted event goes on to its handlers (`next()`);
 * a refused one never reaches them: dropped, dropped after a warning event to the client (`warn`,
 * once per streak: `socket.emit('rate_limited', info)`), or held in order until it fits (`delay`: the
 * transport is not paused, socket.io has no per-socket back-pressure, so at most `maxQueued` wait);
 * the `closeAfter`th refusal on the socket disconnects it (the whole connection: `disconnect(true)`).
 */
import type { RateLimiter } from '@ratekeeper/core';
import { connectionKey } from './connection-key.js';
import { isCost } from './cost.js';
import { background, Meter, type Strikes, type Transport } from './meter.js';
import { type CommonLimitOptions, type LimitInfo, optionalFunction, type Settings, settings } from './options.js';

/** The few members of a socket.io Socket this package uses. */
export interface IoSocket {
  emit(event: string, ...args: unknown[]): unknown;
  disconnect(close?: boolean): unknown;
  once(event: 'disconnect', listener: () => void): unknown;
}

/** A socket.io packet as `socket.use` sees it: the event name, then its arguments. */
export type Packet = [event: string, ...args: unknown[]];

export interface EventLimitOptions extends CommonLimitOptions {
  /** Limiters of their own for some events (their budgets are theirs, by the limiters' names). */
  readonly events?: Readonly<Record<string, RateLimiter>>;
  /** The budget's key for a socket (a user); default: each socket its own. */
  readonly key?: (socket: IoSocket) => string;
  /** An event's cost (default 1). */
  readonly cost?: (event: string, args: readonly unknown[]) => number;
  /** The event the client is warned with under `action: 'warn'` (default 'rate_limited'). */
  readonly warningEvent?: string;
}

/** LimitEvents: answers a socket's middleware for `socket.use`. */
export type LimitEvents = (socket: IoSocket) => (packet: Packet, next: (error?: Error) => void) => void;

/** eventLimit validates `options` once and answers the middleware factory (see the file comment). */
export function eventLimit(options: EventLimitOptions): LimitEvents {
  const owner = 'eventLimit';
  const { settings: s, options: o } = settings(owner, options, ['events', 'key', 'cost', 'warningEvent']);
  const keyOf = optionalFunction<(socket: IoSocket) => string>(owner, 'key', o.key);
  const costOf = optionalFunction<(event: string, args: readonly unknown[]) => number>(owner, 'cost', o.cost);
  const warningEvent = o.warningEvent ?? 'rate_limited';
  if (typeof warningEvent !== 'string' || warningEvent === '') throw new TypeError(`${owner}: warningEvent must be a non-empty string`);
  const perEvent = new Map<string, Settings>();
  for (const [event, limiter] of Object.entries(o.events ?? {}))
    perEvent.set(event, settings(`${owner}: events["${event}"]`, { ...options, limiter }, ['events', 'key', 'cost', 'warningEvent']).settings);

  return function limitEvents(socket) {
    const connection = connectionKey();
    const key = keyOf === undefined ? connection : keyOf(socket);
    const strikes: Strikes = { denials: 0 };
    const meters = new Map<Settings, Meter<Packet, (error?: Error) => void>>();
    const meterFor = (event: string) => {
      const chosen = perEvent.get(event) ?? s;
      let meter = meters.get(chosen);
      if (meter === undefined) {
        const transport: Transport<Packet, (error?: Error) => void> = {
          deliver: (_packet, next) => next(),
          warn: (info: LimitInfo) => socket.emit(warningEvent, { ...info, event }),
          // socket.io hands an admitted event to its handlers on a later tick, and drops it once the
          // socket is disconnected: the close waits for the events admitted before it.
          close: () => setImmediate(() => socket.disconnect(true)),
          fail: () => setImmediate(() => socket.disconnect(true)),
          pause: () => {},
          resume: () => {},
        };
        meters.set(chosen, (meter = new Meter(chosen, key, connection, transport, strikes)));
      }
      return meter;
    };
    socket.once('disconnect', () => {
      for (const meter of meters.values()) meter.closed();
      if (keyOf === undefined) for (const chosen of meters.keys()) background(chosen.limiter.reset(connection));
    });
    return function rateLimitEvent(packet, next) {
      const event = packet[0];
      const cost = costOf === undefined ? 1 : costOf(event, packet.slice(1));
      if (!isCost(cost)) return next(new TypeError(`${owner}: cost must answer a positive integer for "${event}"`));
      meterFor(event).offer(packet, next, cost);
    };
  };
}
