/**
 * The one-time failure warning names its cause: each cause a RedisStore can meet has its own code and
 * sentence (causeOf, a table over client states and failures), and the two a running Redis can
 * produce are shown end to end on real servers with the store's default options: a server that stops
 * answering (SIGSTOP) warns RATEKEEPER_REDIS_TIMEOUT naming timeoutMs' 1000 ms, and a server that
 * answers the scripts with errors (EVALSHA and EVAL renamed away) warns RATEKEEPER_REDIS_REPLY. Each is
 * told once per process, whatever the number of failures.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { type FailureInfo, forgetFailureWarnings } from '@ratekeeper/core/store';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { causeOf } from '../src/failure-warning.js';
import { RedisStore } from '../src/index.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { warningsOnProcess } from '@ratekeeper/store-contract';

const info = (reason: FailureInfo['reason'], error?: unknown): FailureInfo => ({ reason, error, operation: 'consume', policy: 'tb-2-1', key: 'k' }) as unknown as FailureInfo;
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' });

describe('causeOf', () => {
  it.each([
    ['a node-redis client never connected', { isOpen: false }, info('connection', new Error('The client is closed')), 'RATEKEEPER_REDIS_NOT_CONNECTED'],
    ['an ioredis lazyConnect client without its offline queue', { status: 'wait' }, info('connection', new Error("Stream isn't writeable")), 'RATEKEEPER_REDIS_NOT_CONNECTED'],
    [
      'an offline-queue refusal from any client',
      {},
      info('connection', new Error("Stream isn't writeable and enableOfflineQueue options is false")),
      'RATEKEEPER_REDIS_NOT_CONNECTED',
    ],
    ['a refused connection', { status: 'reconnecting' }, info('connection', refused), 'RATEKEEPER_REDIS_REFUSED'],
    ['a silent server', { status: 'ready' }, info('timeout'), 'RATEKEEPER_REDIS_TIMEOUT'],
    ['an error reply', { status: 'ready' }, info('reply', new Error('ERR unknown command')), 'RATEKEEPER_REDIS_REPLY'],
    ['a lost connection', { status: 'end' }, info('connection', new Error('Connection is closed.')), 'RATEKEEPER_REDIS_CONNECTION'],
  ])('%s: %s', (_label, client, failure, code) => {
    expect(causeOf(client, failure, 1000)?.code).toBe(code);
  });

  it('says nothing for a call refused while the breaker is open: it only follows the failure that opened it', () => {
    expect(causeOf({ status: 'ready' }, info('unavailable'), 1000)).toBeUndefined();
  });

  it('names timeoutMs with its value for a silent server', () => {
    expect(causeOf({}, info('timeout'), 1234)?.text).toBe('Redis answered nothing for 1234 ms (timeoutMs)');
  });
});

const { ours, settle } = warningsOnProcess(forgetFailureWarnings);
const servers: RedisServer[] = [];
const clients: Redis[] = [];
afterAll(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  for (const s of servers.splice(0)) await s.stop();
});

async function limiterOn(args: readonly string[] = []) {
  const server = await startServer(args);
  servers.push(server);
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  client.on('error', () => {});
  clients.push(client);
  const store = new RedisStore({ client });
  return { server, limiter: new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock: new ManualClock(0), store, name: 'cause' }) };
}

describeRedis('the failure warning on a real Redis, default options', () => {
  it('warns RATEKEEPER_REDIS_TIMEOUT once for a server that stops answering, naming timeoutMs', async () => {
    const { server, limiter } = await limiterOn();
    expect((await limiter.consume('k')).failure).toBeUndefined();
    server.pause();
    try {
      const decisions = await Promise.all([limiter.consume('k'), limiter.consume('k')]);
      expect(decisions.map((d) => d.failure)).toEqual(['fallback', 'fallback']);
    } finally {
      server.resume();
    }
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_REDIS_TIMEOUT']);
    expect(ours()[0]?.message).toContain('Redis answered nothing for 1000 ms (timeoutMs)');
  });

  it('warns RATEKEEPER_REDIS_REPLY once for a server that answers the scripts with errors', async () => {
    const { limiter } = await limiterOn(['--rename-command', 'EVALSHA', '', '--rename-command', 'EVAL', '']);
    const decisions = await Promise.all([limiter.consume('k'), limiter.consume('k'), limiter.consume('k')]);
    expect(decisions.map((d) => d.failure)).toEqual(['fallback', 'fallback', 'fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_REDIS_REPLY']);
    expect(ours()[0]?.message).toContain('Redis answered with an error');
  });
});
