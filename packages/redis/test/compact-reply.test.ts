/**
 * The compact reply (lua/prelude.ts `compact`, read by transport/decisions.ts): an admission's remaining and
 * resetAfterMs sent as one integer. For any whole figures, the Lua encoder either answers an integer
 * that decodes to exactly those figures, or declines (the four-value form) only when they cannot fit
 * in 50 bits together; it declines -0, fractions and a non-zero retryAfterMs. Run on a real
 * redis-server, so the Lua number-to-integer reply conversion is the one production sees.
 */
import type { Policy } from '@ratekeeper/core';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeOne } from '../src/transport/decisions.js';
import { prelude } from '../src/lua/prelude.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

let server: RedisServer;
let redis: Redis;
const POLICY = { name: 'p', algorithm: 'fixed-window', limit: 10, windowMs: 1000 } as unknown as Policy;
const FAR = String(Date.now() + 86_400_000);
// Client time: ARGV is now, signed cost, then the figures (as %.17g text, read back exactly), deadline.
const SCRIPT = `${prelude(true)}
local short = compact(tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
if short then return short end
return 'declined'`;

beforeAll(async () => {
  server = await startServer();
  redis = ioredis(server.port);
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

function encode(remaining: number, retry: number, reset: number): Promise<unknown> {
  const text = (x: number) => (Object.is(x, -0) ? '-0' : String(x));
  return redis.eval(SCRIPT, 0, '0', '1', text(remaining), text(retry), text(reset), FAR);
}

/** fits: the figures fit one of the splits (remaining in 20, 32 or 50 bits, reset above it, 50 bits in all). */
function fits(remaining: number, reset: number): boolean {
  for (const bits of [20, 32, 50]) if (remaining < 2 ** bits) return reset * 2 ** bits + remaining < 2 ** 50;
  return false;
}

const figure = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 20 }),
  fc.integer({ min: 0, max: 2 ** 34 }),
  fc.maxSafeNat(),
  fc.constantFrom(0, 1, 2 ** 18, 2 ** 20 - 1, 2 ** 20, 2 ** 30, 2 ** 32 - 1, 2 ** 32, 2 ** 50 - 1, 2 ** 50),
);

describeRedis('the compact reply', () => {
  it('decodes to exactly the figures it was given, and declines only what cannot fit', async () => {
    await fc.assert(
      fc.asyncProperty(figure, figure, async (remaining, reset) => {
        const reply = await encode(remaining, 0, reset);
        if (fits(remaining, reset)) {
          expect(typeof reply).toBe('number');
          expect(decodeOne(reply, POLICY)).toMatchObject({ allowed: true, remaining, retryAfterMs: 0, resetAfterMs: reset });
        } else {
          expect(reply).toBe('declined');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('declines -0, fractions, negative figures and a wait', async () => {
    for (const [remaining, retry, reset] of [
      [-0, 0, 5],
      [5, 0, -0],
      [5, -0, 5],
      [1.5, 0, 5],
      [5, 0, 2.5],
      [-1, 0, 5],
      [5, 1, 5],
      [5, 0, Number.POSITIVE_INFINITY],
    ] as const) {
      expect(await encode(remaining, retry, reset), `${remaining} ${retry} ${reset}`).toBe('declined');
    }
  });
});
