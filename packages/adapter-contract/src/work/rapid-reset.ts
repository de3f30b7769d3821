/**
 * HTTP/2 rapid reset against a concurrency limit, over real h2c on loopback: the app (an H2App) serves
 * GET / behind the adapter with a `ConcurrencyLimiter` of `LEASES` (the default key: every stream
 * comes from 127.0.0.1), and its route works until the test opens a gate. The raw client
 * (h2-flood.ts) writes `PAIRS` HEADERS+RST_STREAM pairs; Node's http2 emits a request for a stream the
 * client has already reset (without a limit, 8,000 to 9,000 of 10,000 handlers start here), so every
 * pair reaches the adapter.
 *
 * - At most `LEASES` handlers run: exactly `LEASES` start (the flood opens far more streams than that),
 *   all the others are denied before any handler runs.
 * - Every lease comes back: once the gate opens and the handlers answer their reset streams (nobody
 *   receives it), the key has no request in flight, and a fresh request is admitted.
 * Waiting is on events: the flood resolves when its sockets are closed and knows, from each GOAWAY,
 * how many streams the server took; the server's 'stream' events are counted up to that number (every
 * stream handed to the app), and the
 * leases' return is polled in bounded steps (`eventually`), as the leases suite does.
 * The adapter's mutant that keeps a lease after an RST (one that drops the work of a response closed
 * before it was sent: closeWhenSent) must fail the second check. And `abandonedMs: 0`, the option that
 * ends a lease when its client leaves, must fail the first: over HTTP/2 each reset frees a slot while
 * its handler still runs, and the flood starts far more than `LEASES` handlers.
 */
import { once } from 'node:events';
import { connect, constants, type Http2Server } from 'node:http2';
import type { Http2Session } from 'node:http2';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConcurrencyLimiter, type Decision } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Flooded, rapidReset } from './h2-flood.js';
import { eventually } from './serve-work.js';

/** LEASES is the concurrency limit; PAIRS the HEADERS+RST pairs of the flood. */
export const LEASES = 10;
export const PAIRS = 10_000;
/** The bound on each wait for the server (a loaded machine is slow; a passing check waits only as long as it must). */
const WAIT_MS = 10_000;
/** The bound on the wait for leases to come back: a mutant that keeps them fails only after it. */
const LEASES_BACK_MS = 5000;

/** H2Options are the adapter options an H2App mounts its limiter with. */
export interface H2Options {
  readonly limiter: ConcurrencyLimiter;
  readonly abandonedMs?: number;
}

/** H2App serves an adapter on an h2c server: `options` app-wide (default key), GET / awaiting `work` then answering 'ok'. */
export interface H2App<F> {
  readonly name: string;
  serve(options: H2Options, work: () => Promise<void>, factory?: F): Promise<Http2Server>;
}

const servers: Http2Server[] = [];
const sessions: Http2Session[] = [];
afterEach(async () => {
  // A reset stream's session stays open on the server (its client is gone, half-closed): end them.
  for (const session of sessions.splice(0)) session.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/**
 * closeWhenSent makes `res.once('close', …)` call its listener only when the response's headers had
 * been sent at its close, until the returned function undoes it: the mutation the adapters'
 * keeps-lease-after-reset mutants apply around the real middleware. A stream the client reset closes
 * before its handler answered, so the work watching it never hears of it again, and its lease stays
 * taken (until `abandonedMs`, 60 s by default, ends it), even once the handler answers.
 */
export function closeWhenSent(res: Pick<ServerResponse, 'once' | 'headersSent'>): () => void {
  const original = res.once;
  res.once = function (this: ServerResponse, event: string, listener: (...args: unknown[]) => void) {
    const heard = event === 'close' ? () => void (this.headersSent && listener()) : listener;
    return original.call(this, event, heard);
  } as typeof res.once;
  return () => void (res.once = original);
}

/** get sends one GET / over a fresh HTTP/2 connection and answers its status. */
async function get(port: number): Promise<number> {
  const session = connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  try {
    const stream = session.request({ [constants.HTTP2_HEADER_PATH]: '/' });
    const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
    stream.resume();
    await once(stream, 'end');
    return Number(headers[constants.HTTP2_HEADER_STATUS]);
  } finally {
    session.close();
  }
}

/** flooded serves the app, floods it, and answers what the handlers did, with the gate still shut. */
async function flooded<F>(app: H2App<F>, factory?: F, abandonedMs?: number) {
  const limiter = new ConcurrencyLimiter({ limit: LEASES, name: 'inflight' });
  const gate: (() => void)[] = [];
  let started = 0;
  let running = 0;
  let most = 0;
  const work = () => {
    started++;
    most = Math.max(most, ++running);
    return new Promise<void>((resolve) => gate.push(() => (running--, resolve())));
  };
  const server = await app.serve(abandonedMs === undefined ? { limiter } : { limiter, abandonedMs }, work, factory);
  servers.push(server);
  let streams = 0;
  server.on('session', (session: Http2Session) => void (session.on('error', () => {}), sessions.push(session)));
  server.on('stream', () => void streams++);
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const flood: Flooded = await rapidReset(port, PAIRS);
  await eventually(`streams handed to the app: ${streams} of the ${flood.streams} the server took`, () => streams >= flood.streams, WAIT_MS);
  await new Promise((resolve) => setImmediate(resolve));
  const inFlight = () => {
    const peek = limiter.peek('127.0.0.1') as Decision;
    return peek.allowed ? LEASES - 1 - peek.remaining : LEASES;
  };
  return { flood, port, gate, inFlight, started: () => started, most: () => most, running: () => running };
}

/**
 * withinLeases floods the app: exactly LEASES handlers start; then it opens the gate and waits
 * (bounded) for the key to have nothing in flight, and a fresh request is admitted.
 */
export async function withinLeases<F>(app: H2App<F>, factory?: F, abandonedMs?: number): Promise<Flooded> {
  const { flood, gate, inFlight, port, running, started, most } = await flooded(app, factory, abandonedMs);
  expect(flood.pairs).toBe(PAIRS);
  expect([started(), most(), inFlight()], 'handlers started, most at once, leases in flight').toEqual([LEASES, LEASES, LEASES]);
  for (const open of gate.splice(0)) open();
  await eventually('every handler has answered its reset stream', () => running() === 0, WAIT_MS);
  await eventually('leases back', () => inFlight() === 0, LEASES_BACK_MS).catch(() => {
    throw new Error(`leases in flight after the flood, once every handler answered: ${inFlight()}, want 0`);
  });
  const admitted = get(port);
  await eventually('the fresh request starts', () => gate.length === 1, WAIT_MS);
  gate.shift()?.();
  expect(await admitted, 'a fresh request after the flood').toBe(200);
  return flood;
}

export function rapidResetSuite<F>(apps: readonly H2App<F>[], mutant: { keepsLeaseAfterReset: F }): void {
  for (const app of apps) {
    describe(`${app.name}: HTTP/2 rapid reset`, () => {
      it(`runs at most ${LEASES} handlers under ${PAIRS} HEADERS+RST pairs, and every lease comes back`, { timeout: 60_000 }, async () => {
        await withinLeases(app);
      });

      it('the check catches an adapter that keeps a lease after an RST (mutant)', { timeout: 60_000 }, async () => {
        await expect(withinLeases(app, mutant.keepsLeaseAfterReset)).rejects.toThrow(/leases in flight after the flood/);
      });

      it('the check catches leases that end when their client resets (abandonedMs: 0)', { timeout: 60_000 }, async () => {
        await expect(withinLeases(app, undefined, 0)).rejects.toThrow(/handlers started, most at once/);
      });
    });
  }
}
