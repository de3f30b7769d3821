/**
 * The default key is `request.ip`, so Fastify's own `trustProxy` decides whether X-Forwarded-For
 * counts; core's ipKey then groups IPv6 by prefix (/56 by default) and unwraps IPv4-mapped addresses
 * in every spelling. A request without a usable IP never lands in a shared bucket.
 */
import { ManualClock, type RateLimitBaseOptions, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify, { type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { counting } from './helpers.js';

async function appWith(server: FastifyServerOptions, capacity: number, options: RateLimitBaseOptions<FastifyRequest> = {}) {
  const limiter = counting(new TokenBucketLimiter({ capacity, refillPerSecond: 1, clock: new ManualClock(0) }));
  const app = Fastify(server);
  await app.register(rateLimit, { limiter: limiter.limiter, ...options });
  app.get('/', async (req) => req.ip);
  return { app, keys: limiter.keys };
}

const hex = (n: number) => (n & 0xffff).toString(16);

describe('trustProxy', () => {
  it('off: a rotating spoofed X-Forwarded-For changes nothing, one socket is one bucket', async () => {
    const { app, keys } = await appWith({}, 3);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await app.inject({ url: '/', headers: { 'x-forwarded-for': `10.0.0.${i}` } })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    expect(new Set(keys)).toEqual(new Set(['127.0.0.1']));
  });

  it('on: the client address Fastify resolved is the key', async () => {
    const { app, keys } = await appWith({ trustProxy: true }, 1);
    for (const client of ['203.0.113.7', '203.0.113.8']) {
      const res = await app.inject({ url: '/', headers: { 'x-forwarded-for': client } });
      expect([res.statusCode, res.body]).toEqual([200, client]);
    }
    expect((await app.inject({ url: '/', headers: { 'x-forwarded-for': '203.0.113.7' } })).statusCode).toBe(429);
    expect(keys).toEqual(['203.0.113.7', '203.0.113.8', '203.0.113.7']);
  });

  it('trusting one proxy address: spoofed entries left of the last untrusted hop are ignored', async () => {
    const { app, keys } = await appWith({ trustProxy: '127.0.0.1' }, 1);
    for (const spoof of ['6.6.6.6', '7.7.7.7']) await app.inject({ url: '/', headers: { 'x-forwarded-for': `${spoof}, 198.51.100.9` } });
    expect(keys).toEqual(['198.51.100.9', '198.51.100.9']);
  });
});

describe('trustProxy as a hop count (documented pitfall)', () => {
  it('puts every client behind the proxy in one bucket: Fastify >= 5.12.1 ignores a numeric trustProxy', async () => {
    // This pins Fastify's behaviour the README warns about; if it flips, the README must change too.
    // Fastify's types no longer accept a number, but JavaScript configurations still pass one.
    const { app, keys } = await appWith({ trustProxy: 1 as never }, 100);
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) await app.inject({ url: '/', headers: { 'x-forwarded-for': client } });
    expect(keys).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);
  });
});

describe('IPv6 grouping', () => {
  it('puts 1,000 addresses inside one /56 into one bucket', async () => {
    const { app, keys } = await appWith({ trustProxy: true }, 999);
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const address = `2001:db8:aa:bb${hex(i % 256).padStart(2, '0')}:${hex(i)}:${hex(i * 7919)}:${hex(i % 13)}:${hex(i * 31)}`;
      statuses.push((await app.inject({ url: '/', headers: { 'x-forwarded-for': address } })).statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(999);
    expect(statuses[999]).toBe(429);
    expect(new Set(keys)).toEqual(new Set(['2001:db8:aa:bb00::/56']));
  });

  it('keeps two /56 prefixes apart', async () => {
    const { app, keys } = await appWith({ trustProxy: true }, 1);
    const ask = (address: string) => app.inject({ url: '/', headers: { 'x-forwarded-for': address } }).then((r) => r.statusCode);
    expect([await ask('2001:db8:aa:bb01::1'), await ask('2001:db8:aa:bbff::2')]).toEqual([200, 429]);
    expect(await ask('2001:db8:aa:bc01::1')).toBe(200);
    expect(keys).toEqual(['2001:db8:aa:bb00::/56', '2001:db8:aa:bb00::/56', '2001:db8:aa:bc00::/56']);
  });

  it('groups by the configured ipv6Subnet', async () => {
    const { app, keys } = await appWith({ trustProxy: true }, 1, { ipv6Subnet: 64 });
    for (const address of ['2001:db8:aa:bb01::1', '2001:db8:aa:bb02::1']) await app.inject({ url: '/', headers: { 'x-forwarded-for': address } });
    expect(keys).toEqual(['2001:db8:aa:bb01::/64', '2001:db8:aa:bb02::/64']);
  });
});

describe('IPv4-mapped IPv6', () => {
  const spellings = [
    '1.2.3.4',
    '::ffff:1.2.3.4',
    '::FFFF:1.2.3.4',
    '::ffff:102:304',
    '::ffff:0102:0304',
    '0:0:0:0:0:ffff:102:304',
    '0000:0000:0000:0000:0000:FFFF:0102:0304',
    '::ffff:1.2.3.4%eth0',
  ];

  it('lands every spelling of the socket address on the IPv4 key', async () => {
    const { app, keys } = await appWith({}, 100);
    for (const remoteAddress of spellings) expect((await app.inject({ url: '/', remoteAddress })).statusCode).toBe(200);
    expect(keys).toEqual(spellings.map(() => '1.2.3.4'));
  });

  it('lands every spelling of a forwarded address on the IPv4 key, so they share one budget', async () => {
    const { app, keys } = await appWith({ trustProxy: true }, spellings.length - 1);
    const statuses: number[] = [];
    for (const address of spellings) statuses.push((await app.inject({ url: '/', headers: { 'x-forwarded-for': address } })).statusCode);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 200)).toHaveLength(spellings.length - 1);
    expect(new Set(keys)).toEqual(new Set(['1.2.3.4']));
  });
});

describe('missing IP', () => {
  it('rejects a request without a usable IP through the error handler by default, never counting it', async () => {
    const { app, keys } = await appWith({ trustProxy: true }, 5);
    const errors: string[] = [];
    app.setErrorHandler((error, _req, reply) => {
      errors.push((error as Error).name);
      return reply.code(500).send('no ip');
    });
    for (const junk of ['unknown', 'undefined', '999.1.1.1', 'not an ip']) {
      expect((await app.inject({ url: '/', headers: { 'x-forwarded-for': junk } })).statusCode).toBe(500);
    }
    expect(errors).toEqual(['MissingIpError', 'MissingIpError', 'MissingIpError', 'MissingIpError']);
    expect(keys).toEqual([]);
  });

  it("lets such a request through uncounted and without headers with missingIp: 'skip'", async () => {
    const { app, keys } = await appWith({ trustProxy: true }, 1, { missingIp: 'skip' });
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ url: '/', headers: { 'x-forwarded-for': 'unknown' } });
      expect([res.statusCode, res.headers.ratelimit]).toEqual([200, undefined]);
    }
    expect(keys).toEqual([]);
  });
});
