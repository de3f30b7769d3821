/**
 * Bookings on RedisStore from four connections at once: the shared checks (@ratekeeper/store-contract's
 * bookingQueueChecks), four stores of default options but client time, each on its own connection,
 * standing for four processes: 40 unit bookings each on one key at once, for every algorithm, exactly
 * the memory store's one-at-a-time queue and never beyond the limit; a cancel at or after the booked
 * instant gives nothing back; two cancels of one booking at once give back exactly one unit. Its
 * mutants rewrite the booking scripts on their way to Redis (./mutants/rewritten-scripts-client.ts):
 * a booking that ignores the bookings ahead, and a cancel that gives back after the instant.
 */
import { bookingQueueChecks } from '@ratekeeper/store-contract';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisStore } from '../src/index.js';
import { BOOKING_JUMPS_QUEUE, CANCEL_AFTER_INSTANT, rewrittenScripts } from './mutants/rewritten-scripts-client.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const REWRITES = { 'booking-jumps-queue': BOOKING_JUMPS_QUEUE, 'cancel-after-instant': CANCEL_AFTER_INSTANT };
type Mutant = keyof typeof REWRITES;

let server: RedisServer;
let connections: Redis[] = [];

beforeAll(async () => {
  server = await startServer();
  connections = Array.from({ length: 4 }, () => ioredis(server.port));
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

bookingQueueChecks<Mutant>({
  describe: describeRedis,
  stores: async (mutant) => (index) => {
    const connection = connections[index] as Redis;
    return new RedisStore({ client: mutant === undefined ? connection : rewrittenScripts(connection, REWRITES[mutant]), time: 'client' });
  },
  mutants: [['a booking that ignores the bookings ahead of it', 'booking-jumps-queue']],
  cancelAfterInstant: 'cancel-after-instant',
});
