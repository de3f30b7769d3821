/**
 * Support for the contract suites and the adapters' own tests: real servers on loopback (closed after
 * each test), a one-connection client, limiters that count what the middleware asks of them, and the
 * header-hygiene check every response goes through. Nothing here sleeps: limiters run on a ManualClock.
 */
import { Agent, type Server, request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Decision, RateLimiter } from '@ratekeeper/core';
import request from 'supertest';
import { afterEach, expect } from 'vitest';

const open: Server[] = [];
afterEach(async () => {
  // closeAllConnections: a request a broken adapter never answered must not keep the server open.
  await Promise.all(open.splice(0).map((s) => new Promise((done) => (s.close(done), s.closeAllConnections()))));
});

export interface Listening {
  readonly server: Server;
  readonly http: ReturnType<typeof request>;
  /** How many TCP connections the server accepted. */
  connections(): number;
}

/** listen starts an app on an ephemeral loopback port, closed after the test, with a supertest client. */
export function listen(app: { listen(port: number, host: string): Server }): Listening {
  const server = app.listen(0, '127.0.0.1');
  open.push(server);
  let connections = 0;
  server.on('connection', () => connections++);
  return { server, http: request(server), connections: () => connections };
}

export interface Sent {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
}

/**
 * oneSocket returns a client that sends every request over one kept-alive connection (supertest opens
 * a connection per request), for the tests that must come "from one socket" and send many requests.
 */
export function oneSocket(server: Server): { get: (path: string, headers?: Record<string, string>) => Promise<Sent>; close: () => void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = async (path: string, headers: Record<string, string> = {}) => {
    if (!server.listening) await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    return new Promise<Sent>((resolve, reject) => {
      const req = httpRequest({ agent, host: '127.0.0.1', port, path, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });
  };
  return { get, close: () => agent.destroy() };
}

export interface Counted {
  readonly limiter: RateLimiter;
  /** The key of every consume call, in order. */
  readonly keys: string[];
  /** The cost of every consume call, in order. */
  readonly costs: number[];
}

/** counting wraps a limiter so the test can count consume calls and see their keys and costs. */
export function counting(inner: RateLimiter): Counted {
  const keys: string[] = [];
  const costs: number[] = [];
  const limiter: RateLimiter = {
    mode: inner.mode,
    policies: inner.policies,
    consume(key, cost = 1) {
      keys.push(key);
      costs.push(cost);
      return inner.consume(key, cost);
    },
    peek: (key, cost) => inner.peek(key, cost),
    allow: (key, cost) => inner.allow(key, cost),
    reset: (key) => inner.reset(key),
  };
  return { limiter, keys, costs };
}

/** asyncLimiter answers every consume with a promise, as a remote store does; `decide` may rewrite it. */
export function asyncLimiter(inner: RateLimiter, decide: (d: Decision) => Decision | Promise<Decision> = (d) => d): RateLimiter<'async'> {
  return {
    mode: 'async',
    policies: inner.policies,
    consume: async (key, cost) => decide(await inner.consume(key, cost)),
    peek: async (key, cost) => inner.peek(key, cost),
    allow: async (key, cost) => inner.allow(key, cost),
    reset: async (key) => inner.reset(key),
  };
}

/** gated is an async limiter whose answers wait until the test opens the gate (calls waiting.shift()). */
export function gated(inner: RateLimiter): { limiter: RateLimiter<'async'>; waiting: (() => void)[] } {
  const waiting: (() => void)[] = [];
  const limiter: RateLimiter<'async'> = {
    mode: 'async',
    policies: inner.policies,
    consume: (key, cost) => new Promise<Decision>((resolve) => waiting.push(() => resolve(inner.consume(key, cost) as Decision))),
    peek: async (key, cost) => inner.peek(key, cost),
    allow: async (key, cost) => inner.allow(key, cost),
    reset: async (key) => inner.reset(key),
  };
  return { limiter, waiting };
}

/** expectPrintableHeaders asserts that every header name and value is printable ASCII. */
export function expectPrintableHeaders(headers: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      expect(`${name}: ${String(v)}`).toMatch(/^[\x20-\x7e]*$/);
    }
  }
}

/** refusal is the error a framework throws for a header it refuses, shaped like Node's ERR_INVALID_CHAR. */
export function refusal(name: string): TypeError {
  return Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), { code: 'ERR_INVALID_CHAR' });
}
