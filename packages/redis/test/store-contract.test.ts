/**
 * The store contract suite on RedisStore with default options (the server's clock), through ioredis
 * and through node-redis, on a redis-server of its own. The differential runs on a store in client
 * time (the deny cache off: it answers a repeated denial's `remaining` as Redis last gave it, see
 * deny-cache-differential.test.ts), on histories that keep every TTL past MARGIN_MS (Redis expires
 * keys by its real clock: ./support/histories.ts) and never step the clock back (see below); through
 * ioredis, its mutants are five classic
 * porting mistakes of the Lua scripts (./mutants/rewritten-scripts-client.ts). The burst is 8 worker
 * processes (./support/worker.mjs, the built package), each with its own connection and a store of
 * DEFAULT options (timeoutMs 50, 'fallback': Redis works through 16,000 scripts far slower than that,
 * yet it is answering a queue, not failing); through ioredis, the GET-then-SET store and a batch
 * decided from one snapshot must over-admit in it.
 */
import { type Burst, storeContractSuite } from '@ratekeeper/store-contract';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisStore } from '../src/index.js';
import { FORGETFUL_LOG, LATE_FIRST_REQUEST_BOUNDARY, LATE_LOG_BOUNDARY, LOSSY_STATE, TRUNCATED_REPLY, rewrittenScripts } from './mutants/rewritten-scripts-client.js';
import { CLIENT_KINDS, type ClientKind, client, closeAll } from './support/clients.js';
import { MARGIN_MS } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { WorkerPool, type WorkerSetup } from './support/workers.js';

/** RATEKEEPER_DIFF_RUNS raises the number of histories per property (nightly runs use more). */
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 30);
const REWRITES = {
  'lossy-state': LOSSY_STATE,
  'truncated-reply': TRUNCATED_REPLY,
  'late-log-boundary': LATE_LOG_BOUNDARY,
  'late-first-request-boundary': LATE_FIRST_REQUEST_BOUNDARY,
  'forgetful-log': FORGETFUL_LOG,
};
type Rewrite = keyof typeof REWRITES;
type BurstMutant = Extract<WorkerSetup['store'], 'get-then-set' | 'snapshot-batch'>;

let server: RedisServer;
let pool: WorkerPool;

beforeAll(async () => {
  server = await startServer();
  server.prioritise();
  pool = new WorkerPool(8);
});

afterAll(async () => {
  pool?.close();
  await closeAll();
  await server?.stop();
});

/** clientTime: a store in client time on a connection of its own, its scripts rewritten by a mutant when named (ioredis only). */
async function clientTime(kind: ClientKind, mutant?: Rewrite): Promise<RedisStore> {
  const made = await client(kind, server.port);
  const wire = mutant === undefined ? made : rewrittenScripts(made as Redis, REWRITES[mutant]);
  return new RedisStore({ client: wire, time: 'client', timeoutMs: 5000, onFailure: 'closed', denyCache: false });
}

/**
 * burst runs one burst: 8 processes, each with its own connection and a store of default options but
 * a key prefix of the burst's own (a mutant's keys, its warm-up key among them, in the GET-then-SET
 * store's format, must never meet the real store's scripts).
 */
function burst(kind: ClientKind, b: Burst, mutant?: BurstMutant) {
  const requests = Array.from({ length: b.requests }, () => [b.key, 1] as const);
  const setup: WorkerSetup = { port: server.port, client: kind, store: mutant ?? 'redis', prefix: `${b.key}:`, members: b.members, skewMs: 0, requests, resetFirst: b.resetFirst };
  return pool.run(Array.from({ length: b.workers }, () => setup));
}

for (const kind of CLIENT_KINDS) {
  const mutants = kind === 'ioredis';
  describeRedis(`RedisStore through ${kind}`, () => {
    storeContractSuite(`RedisStore (${kind})`, async () => ({ store: new RedisStore({ client: await client(kind, server.port) }) }), {
      another: async () => new RedisStore({ client: await client(kind, server.port) }),
      differential: {
        store: (mutant?: Rewrite) => clientTime(kind, mutant),
        marginMs: MARGIN_MS,
        // The clock never steps back here (./differential.test.ts steps it back over consumes, peeks,
        // allows and resets). With refunds and bans it finds two differences from memory: a refund that
        // empties a key deletes it at once (its TTL is the time until empty), so a clock stepped back
        // behind the refund finds the key full where memory's is a millisecond short; and a ban seen
        // ended is kept until its key's TTL, so a clock stepped back behind its end finds it banned
        // again where memory dropped it. Both wait on redis/src.
        graceMs: 1,
        runs: RUNS,
        mutants: mutants
          ? [
              { what: 'a port with state stored in single precision', mutant: 'lossy-state', history: 'rates' },
              { what: 'a port with figures returned as Lua numbers', mutant: 'truncated-reply', history: 'rates' },
              { what: 'a sliding-log boundary off by one', mutant: 'late-log-boundary', history: 'rates', algorithm: 'sliding-log' },
              { what: 'a sliding log that forgets the units still inside its window', mutant: 'forgetful-log', history: 'rates', algorithm: 'sliding-log' },
              {
                what: 'a first-request window live at exactly its end',
                mutant: 'late-first-request-boundary',
                history: 'rates',
                algorithm: 'first-request-window',
              },
            ]
          : [],
      },
      burst: {
        run: (b, mutant?: BurstMutant) => burst(kind, b, mutant),
        mutants: mutants
          ? [
              ['a GET-then-SET store', 'get-then-set'],
              ['a batch that decides every call from one snapshot', 'snapshot-batch'],
            ]
          : [],
      },
    });
  });
}
