/**
 * The network's faults between the application and Redis, through the test kit's fault proxy
 * (@ratekeeper/store-contract networkFaults: one request every 10 ms on one key, healthy, under the
 * fault for 1.2 s, then healed), with the README's client (ioredis `new Redis(url)`) and RedisStore's
 * DEFAULT options (timeoutMs 1,000, 'fallback'). What the store does, per fault:
 *
 * | fault                         | decisions                          | bound asserted                              |
 * |-------------------------------|------------------------------------|---------------------------------------------|
 * | latency 200 ms ± 100 ms       | all by Redis (slow, answering)     | no fallback                                 |
 * | bandwidth 4 KB/s              | all by Redis (slow, answering)     | no fallback                                 |
 * | blackhole (held, then healed) | fallback once silent for timeoutMs | slowest ≤ timeoutMs + SLACK; back ≤ 1 s     |
 * | half-open connection          | fallback at once (reset on write)  | slowest ≤ timeoutMs + SLACK; back ≤ 1 s     |
 * | reset mid-reply               | fallback at once, reconnects       | slowest ≤ timeoutMs + SLACK; back ≤ 1 s     |
 * | partition of one of 2 clients | that one by fallback, other Redis  | the other: no fallback                      |
 *
 * Throughout, Redis's count never falls below what Redis admitted, and exceeds it by at most the calls
 * in flight when the fault began: held requests reach Redis past their deadline and change nothing; a
 * script that ran just before the fault, its reply held or lost, is also decided by the fallback; and
 * a reply cut off after its script ran may leave its request counted twice (ioredis sends unanswered
 * commands again on reconnect, inside the deadline). Each denies more, never admits more.
 *
 * The mutant whose scripts ignore their deadline (./mutants/no-deadline-client.ts) is caught by the
 * blackhole's count: the held requests run when it heals, and Redis counts what the fallback decided.
 *
 * RATEKEEPER_REPORT=1 npx vitest run test/faults-network.test.ts prints the measured table.
 */
import { networkFaultChecks, networkFaults } from '@ratekeeper/store-contract';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { noDeadlineClient } from './mutants/no-deadline-client.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

let server: RedisServer;
const clients: Redis[] = [];
/** storeWith makes a store as the README does, on `port`, its client passed through `wrap`. */
const storeWith =
  (wrap: (client: Redis) => object = (client) => client) =>
  (port: number) => {
    const client = new Redis(`redis://127.0.0.1:${port}`);
    client.on('error', () => {});
    clients.push(client);
    const store = new RedisStore({ client: wrap(client) as Redis });
    store.on('failure', () => {});
    return store;
  };
const faults = networkFaults({ host: '127.0.0.1', port: () => server.port, label: 'Redis', storeOn: storeWith() });

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await faults.close();
  for (const client of clients.splice(0)) client.disconnect();
  await server?.stop();
});

describeRedis('network faults between the app and Redis (DEFAULT options, ioredis as the README makes it)', () => {
  networkFaultChecks(faults, {
    kind: 'ioredis',
    latency: [200, 100],
    bytesPerSecond: 4096,
    resentOnReset: 1,
    deadlineMutant: { what: 'the mutant whose scripts ignore their deadline', storeOn: storeWith(noDeadlineClient) },
  });

  it('partition of one app of two: it decides by the fallback, the other by Redis throughout', async () => {
    const [cut, other] = await faults.run('partition', (p) => p.blackhole(), { apps: 2 });
    faults.row('partition: the cut app', cut);
    if (other) faults.row('partition: the other app', other);
    expect(cut.fallback).toBeGreaterThan(0);
    expect(cut.backMs).toBeLessThan(1000);
    expect(other?.fallback).toBe(0);
  });
});
