/**
 * HTTP/2 rapid reset on Bun (bun#36230: 10,000 HEADERS+RST pairs ran about 1,700 handlers): the fetch
 * adapter on Bun's node:http2 h2c server through @hono/node-server (servers/bun-h2.mjs, one Bun process
 * for this file), a ConcurrencyLimiter of 10, and the raw client of the adapter contract writing 10,000
 * HEADERS+RST_STREAM pairs (h2-flood.ts: a PING after the last pair on a connection, its ACK meaning
 * Bun has read every frame before it). Exactly 10 handlers start, and once they answer every lease is
 * back. Bun's own answer to the flood: it closes the connection with GOAWAY after about 1,000
 * streams; the flood reconnects. Caught by the same check: `abandonedMs: 0` (each reset frees a slot
 * while its handler runs) and a wrap that forgets a request whose client is gone (its lease stays).
 */
import { eventually, rapidReset } from '@ratekeeper/adapter-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { available, bunBinary, type Started, start } from './launch.js';

const bun = bunBinary();
let control: Started | undefined;
let ports: number[] = [];

interface State {
  readonly streams: number;
  readonly started: number;
  readonly running: number;
  readonly inFlight: number;
}

const state = async (app: number, open = false): Promise<State> => (await fetch(`${control!.url}/${open ? 'open' : 'state'}?app=${app}`)).json() as Promise<State>;

/** withinLeases floods app `app`, checks that exactly 10 handlers started, opens the gate and waits (bounded) for every lease. */
async function withinLeases(app: number): Promise<void> {
  const flood = await rapidReset(ports[app] as number, 10_000);
  expect(flood.pairs).toBe(10_000);
  // Bun has read every frame (the PING's ACK); its handlers may still be a few turns from starting.
  await eventually('ten handlers started', async () => (await state(app)).started >= 10, 10_000);
  const flooded = await state(app);
  expect(flooded.streams, 'streams Bun opened').toBeGreaterThan(10);
  expect([flooded.started, flooded.running, flooded.inFlight], 'handlers started, running, leases in flight').toEqual([10, 10, 10]);
  await state(app, true);
  let now = flooded;
  await eventually('leases back', async () => ((now = await state(app)), now.running === 0 && now.inFlight === 0), 5000).catch(() => {
    throw new Error(`leases in flight after the flood, once every handler answered: ${now.inFlight}, want 0`);
  });
}

(available('Bun', bun) ? describe : describe.skip)('Bun: HTTP/2 rapid reset (node:http2)', () => {
  beforeAll(async () => {
    if (bun === undefined) throw new Error('Bun is missing (install the `bun` npm package); CI must have it');
    control = await start(bun, ['bun-h2.mjs']);
    ports = (await (await fetch(`${control.url}/ports`)).json()) as number[];
  }, 90_000);
  afterAll(async () => {
    await control?.stop();
  });

  it('runs at most 10 handlers under 10,000 HEADERS+RST pairs, and every lease comes back', { timeout: 60_000 }, async () => {
    await withinLeases(0);
  });

  it('the check catches leases that end when their client resets (abandonedMs: 0)', { timeout: 60_000 }, async () => {
    await expect(withinLeases(1)).rejects.toThrow(/handlers started, running, leases in flight/);
  });

  it('the check catches a wrap that keeps a lease after an RST (mutant)', { timeout: 60_000 }, async () => {
    await expect(withinLeases(2)).rejects.toThrow(/leases in flight after the flood/);
  });
});
