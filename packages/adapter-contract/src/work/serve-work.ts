/**
 * Support for the work suites: a real app of the driver's framework whose GET / works as the suite
 * says (the driver's `work`) before answering, a limiter that counts admissions and the ends of the
 * handlers' work, and clients that can leave at any moment. "Running at once" is measured from
 * admission (the limiter granting the request) to the end of its handler's work (just before the
 * route answers): `max()` is the most there ever were. Every request carries `?id=`, by which the
 * suite finds its client, its arrival and the close of its response on the server.
 */
import { type IncomingMessage, type ServerResponse, request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Decision, RateLimiter } from '@ratekeeper/core';
import type { ContractOptions, Driver, RequestView, Served } from '../driver.js';

/** Tracked wraps a limiter: admissions, the handlers' ends, and refunds still on their way to the store. */
export interface Tracked {
  readonly limiter: RateLimiter;
  admitted(): number;
  /** The most requests ever admitted and not yet done with their work. */
  max(): number;
  /** ended: a handler's work is over (called by the suites' work, just before the route answers). */
  ended(): void;
  finished(): number;
  /** Refunds and releases started and not yet done (a remote store answers later). */
  pending(): number;
}

export function tracked(inner: RateLimiter): Tracked {
  let admitted = 0;
  let finished = 0;
  let max = 0;
  let pending = 0;
  const count = (d: Decision): Decision => {
    if (d.allowed) max = Math.max(max, ++admitted - finished);
    return d;
  };
  const returning = (call: () => unknown): never => {
    pending++;
    return Promise.resolve()
      .then(call)
      .finally(() => pending--) as never;
  };
  const limiter: RateLimiter = {
    mode: inner.mode,
    policies: inner.policies,
    consume(key, cost) {
      const d = inner.consume(key, cost);
      return (d instanceof Promise ? d.then(count) : count(d as Decision)) as never;
    },
    peek: (key, cost) => inner.peek(key, cost),
    allow: (key, cost) => inner.allow(key, cost),
    reset: (key) => inner.reset(key),
    ...(inner.refund === undefined ? {} : { refund: (key: string, cost?: number) => returning(() => inner.refund!(key, cost)) }),
    ...(inner.release === undefined ? {} : { release: (key: string, cost?: number) => returning(() => inner.release!(key, cost)) }),
  };
  return { limiter, admitted: () => admitted, max: () => max, ended: () => void finished++, finished: () => finished, pending: () => pending };
}

/** eventually polls `check` until it holds; after `timeoutMs` it throws an Error whose message is `what`. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(what);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** WorkSent is one request sent to a WorkApp: its client, and the status it received. */
export interface WorkSent {
  readonly client: ReturnType<typeof httpRequest>;
  /** The status the client received, or undefined when it left (or was cut) before the answer. */
  readonly status: Promise<number | undefined>;
}

export interface WorkApp extends Served {
  /** send starts GET /?id=`id`&`query`; it resolves once the server has the request. */
  send(id: string, query?: string): Promise<WorkSent>;
  /** closed resolves when the server saw the response of request `id` close (completed or abandoned). */
  closed(id: string): Promise<void>;
  /** client is the client of request `id` (for a work function that makes it leave). */
  client(id: string): WorkSent['client'] | undefined;
}

/** serveWork serves `options` through the driver (or `factory`), its route doing `work` with the request's id. */
export async function serveWork<F>(driver: Driver<F>, options: ContractOptions, work: (id: string, req: RequestView) => Promise<void>, factory?: F): Promise<WorkApp> {
  const arrivals = new Map<string, () => void>();
  const closes = new Map<string, Promise<void>>();
  const clients = new Map<string, WorkSent['client']>();
  const before = (req: IncomingMessage, res: ServerResponse) => {
    const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('id') ?? '';
    closes.set(
      id,
      once(res, 'close').then(() => {}),
    );
    arrivals.get(id)?.();
  };
  const setup = { before, work: (req: RequestView) => work(req.query('id') ?? '', req), ...(factory === undefined ? {} : { factory }) };
  const served = driver.serve(options, setup);
  if (!served.server.listening) await once(served.server, 'listening');
  const { port } = served.server.address() as AddressInfo;
  const send = async (id: string, query = '') => {
    const came = new Promise<void>((done) => arrivals.set(id, done));
    const client = httpRequest({ host: '127.0.0.1', port, path: `/?id=${id}${query === '' ? '' : `&${query}`}`, agent: false });
    clients.set(id, client);
    const status = new Promise<number | undefined>((resolve) => {
      client.on('response', (res) => {
        res.on('error', () => resolve(undefined));
        res.on('end', () => resolve(res.statusCode));
        res.resume();
      });
      client.on('error', () => resolve(undefined));
      client.on('close', () => resolve(undefined));
    });
    client.end();
    await came;
    return { client, status };
  };
  return { ...served, send, closed: (id) => closes.get(id) ?? Promise.reject(new Error(`no request ${id} arrived`)), client: (id) => clients.get(id) };
}
