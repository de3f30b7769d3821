/**
 * The duck-typed client. RedisStore sends raw commands through whichever client the application
 * already has, so neither library is a dependency:
 *   - ioredis (`Redis` and `Cluster`): `client.call(command, ...args)`; the cluster routes by key.
 *   - node-redis v4/v5 `createClient()`: `client.sendCommand([command, ...args])`.
 *   - node-redis `createCluster()`: `client.sendCommand(firstKey, isReadonly, args)`, told apart by
 *     its `masters` list.
 * Anything else with one of those shapes works too (a proxy, a test double).
 *
 * Send answers with the client's promise; a client that throws synchronously (some do when closed)
 * is turned into a rejected promise, so the caller has one failure path.
 */
import { describeValue } from '@ratekeeper/core/store';

/** RedisClientLike is the smallest surface RedisStore needs from a client. */
export type RedisClientLike =
  | { call(command: string, ...args: string[]): Promise<unknown> }
  | { sendCommand(args: string[]): Promise<unknown> }
  | { sendCommand(firstKey: string, isReadonly: boolean, args: string[]): Promise<unknown>; readonly masters: unknown };

/** Send runs one command (`args[0]`) whose first key is `firstKey`. */
export type Send = (args: string[], firstKey: string) => Promise<unknown>;

type AnyFunction = (...args: unknown[]) => unknown;

/** adaptClient returns a Send for `client`, or throws a TypeError naming `owner` when it has no known shape. */
export function adaptClient(owner: string, client: unknown): Send {
  const c = client as Record<string, unknown> | null;
  if (typeof c === 'object' && c !== null) {
    const call = c['call'];
    const sendCommand = c['sendCommand'];
    if (typeof call === 'function') return guarded((args) => (call as AnyFunction).apply(c, args));
    if (typeof sendCommand === 'function' && 'masters' in c) {
      return guarded((args, firstKey) => (sendCommand as AnyFunction).call(c, firstKey, false, args));
    }
    if (typeof sendCommand === 'function') return guarded((args) => (sendCommand as AnyFunction).call(c, args));
  }
  throw new TypeError(`${owner}: client must be an ioredis client (with call()) or a node-redis client (with sendCommand()), got ${describeValue(client)}`);
}

/** isCluster tells a cluster client (ioredis `Cluster`, node-redis `createCluster()`) from a single node. */
export function isCluster(client: unknown): boolean {
  const c = client as Record<string, unknown> | null;
  return typeof c === 'object' && c !== null && (c['isCluster'] === true || ('masters' in c && typeof c['sendCommand'] === 'function'));
}

function guarded(send: (args: string[], firstKey: string) => unknown): Send {
  return (args, firstKey) => {
    try {
      return Promise.resolve(send(args, firstKey));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
