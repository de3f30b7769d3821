/**
 * The default key is the client IP as the framework resolved it, so the framework's own proxy-trust
 * setting alone decides whether X-Forwarded-For counts. Loopback has one address, so the IPv6 cases
 * reach the middleware through a trusted X-Forwarded-For, exactly as they would behind a proxy.
 * `resolves` rows are the framework's own proxy settings and the address each must yield.
 *
 * What the frameworks pass on verbatim is checked here too, because each of them does (Express, Koa,
 * Fastify: `req.ip` is the X-Forwarded-For entry as written): an entry with a port is the address
 * (it was a MissingIpError 500), an IPv4-compatible `::a.b.c.d` is its IPv4 client (it shared one /56
 * with every other), and the unspecified address (`0.0.0.0`, `::`, …) is no client (it was one bucket
 * for everyone who sent it, on fetch and Hono whatever the proxy).
 */
import { ManualClock, TokenBucketLimiter, ipKey } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { ContractBehaviour, Driver } from '../driver.js';
import { counting, oneSocket } from '../support.js';

/** One proxy-trust row: `proxy` goes to the driver as is; `label` names it in the test title. */
export interface Resolves {
  readonly label: string;
  readonly proxy: unknown;
  readonly xff: string;
  readonly want: string;
}

export function ipSuite<F>(drivers: readonly Driver<F>[], resolves: readonly Resolves[]): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      function app(proxy: unknown, capacity: number, options: ContractBehaviour = {}) {
        const counted = counting(new TokenBucketLimiter({ capacity, refillPerSecond: 1, clock: new ManualClock(0) }));
        return { ...driver.serve({ limiter: counted.limiter, ...options }, { proxy }), keys: counted.keys };
      }

      it('ignores a spoofed X-Forwarded-For when no proxy is trusted: exactly limit admitted from one socket', async () => {
        const { server, keys, connections } = app(false, 5);
        const client = oneSocket(server);
        let admitted = 0;
        for (let i = 0; i < 1000; i++) {
          const res = await client.get('/', { 'X-Forwarded-For': `10.${i >> 8}.${i & 255}.1, 192.0.2.${i & 255}` });
          if (res.status === 200) admitted++;
        }
        client.close();
        expect(admitted).toBe(5);
        expect(connections()).toBe(1);
        expect(new Set(keys)).toEqual(new Set(['127.0.0.1']));
      });

      it.each(resolves)('counts under the address the framework resolves with $label', async ({ proxy, xff, want }) => {
        const { http, keys, ips } = app(proxy, 5);
        await http.get('/').set('X-Forwarded-For', xff).expect(200);
        expect(ips).toEqual([want]);
        expect(keys).toEqual([ipKey(want)]);
      });

      it('puts 1,000 addresses of one /56 in one bucket, and another /56 in its own', async () => {
        const { server, keys } = app(true, 10);
        const client = oneSocket(server);
        let admitted = 0;
        const sent = new Set<string>();
        for (let i = 0; i < 1000; i++) {
          // Vary every bit below the /56: the low byte of group 4 and groups 5 to 8.
          const host = [(i * 37) & 0xff, (i * 7919) & 0xffff, i, (i * 31) & 0xffff, 0xffff - i].map((n) => n.toString(16));
          const xff = `2001:db8:ab:cd${host[0]!.padStart(2, '0')}:${host.slice(1).join(':')}`;
          sent.add(xff);
          if ((await client.get('/', { 'X-Forwarded-For': xff })).status === 200) admitted++;
        }
        expect(sent.size).toBe(1000);
        expect(admitted).toBe(10);
        expect(new Set(keys)).toEqual(new Set(['2001:db8:ab:cd00::/56']));
        const edges = ['2001:db8:ab:cdff:ffff:ffff:ffff:ffff', '2001:db8:ab:ce00::1', '2001:db8:ab:cc00::1'];
        const statuses = [];
        for (const xff of edges) statuses.push((await client.get('/', { 'X-Forwarded-For': xff })).status);
        client.close();
        expect(statuses).toEqual([429, 200, 200]);
        expect(keys.slice(-2)).toEqual(['2001:db8:ab:ce00::/56', '2001:db8:ab:cc00::/56']);
      });

      it('groups by ipv6Subnet when given: two /64s of one /56 are two buckets', async () => {
        const { http, keys } = app(true, 1, { ipv6Subnet: 64 });
        await http.get('/').set('X-Forwarded-For', '2001:db8:ab:cd00::1').expect(200);
        await http.get('/').set('X-Forwarded-For', '2001:db8:ab:cd00:ffff::2').expect(429);
        await http.get('/').set('X-Forwarded-For', '2001:db8:ab:cd01::1').expect(200);
        expect(keys).toEqual(['2001:db8:ab:cd00::/64', '2001:db8:ab:cd00::/64', '2001:db8:ab:cd01::/64']);
      });

      it('counts every spelling of an IPv4-mapped address under the IPv4 key', async () => {
        const spellings = [
          '1.2.3.4',
          '::ffff:1.2.3.4',
          '::FFFF:1.2.3.4',
          '::ffff:102:304',
          '::ffff:0102:0304',
          '0:0:0:0:0:ffff:102:304',
          '0000:0000:0000:0000:0000:FFFF:0102:0304',
          '0:0:0:0:0:ffff:1.2.3.4',
        ];
        const { http, keys } = app(true, spellings.length);
        for (const xff of spellings) await http.get('/').set('X-Forwarded-For', xff).expect(200);
        await http.get('/').set('X-Forwarded-For', '1.2.3.4').expect(429);
        expect(new Set(keys)).toEqual(new Set(['1.2.3.4']));
      });

      it('counts an address with a port under the address: one bucket whatever the port, never a 500', async () => {
        const { http, keys, errors } = app(true, 3);
        const statuses = [];
        for (const xff of ['1.2.3.4:443', '1.2.3.4:8080', '[::ffff:1.2.3.4]:443', '1.2.3.4', '[2001:db8:ab:cd00::1]:443', '[2001:db8:ab:cdff::2]']) {
          statuses.push((await http.get('/').set('X-Forwarded-For', xff)).status);
        }
        expect(statuses).toEqual([200, 200, 200, 429, 200, 200]);
        expect(errors).toEqual([]);
        expect(keys).toEqual(['1.2.3.4', '1.2.3.4', '1.2.3.4', '1.2.3.4', '2001:db8:ab:cd00::/56', '2001:db8:ab:cd00::/56']);
      });

      it('counts each IPv4-compatible ::a.b.c.d as its IPv4 client, not all of them in one /56', async () => {
        const { http, keys } = app(true, 2);
        const statuses = [];
        for (const xff of ['::1.2.3.4', '::102:304', '1.2.3.4', '::5.6.7.8', '0:0:0:0:0:0:5.6.7.8']) statuses.push((await http.get('/').set('X-Forwarded-For', xff)).status);
        expect(statuses).toEqual([200, 200, 429, 200, 200]);
        expect(keys).toEqual(['1.2.3.4', '1.2.3.4', '1.2.3.4', '5.6.7.8', '5.6.7.8']);
      });

      it.each([
        'unknown',
        'undefined',
        'not-an-ip',
        '1.2.3.4.5',
        '::ffff:1.2.3.256',
        `${'1.'.repeat(40)}1`,
        '0.0.0.0',
        '::',
        '::0',
        '0:0:0:0:0:0:0:0',
        '::ffff:0.0.0.0',
        '[::]:443',
        '1.2.3.4:65536',
        '1.2.3.4:',
        '::ffff:1.2.3.4:443',
        '[1.2.3.4]:443',
      ])('never counts the unusable resolved IP %j in a shared bucket: 500 by default, uncounted with missingIp skip', async (junk) => {
        const rejecting = app(true, 1);
        for (let i = 0; i < 3; i++) await rejecting.http.get('/').set('X-Forwarded-For', junk).expect(500);
        expect(rejecting.keys).toEqual([]);
        expect(rejecting.ips).toEqual([]);
        expect(rejecting.errors.map((e) => (e as Error).name)).toEqual(['MissingIpError', 'MissingIpError', 'MissingIpError']);
        const skipping = app(true, 1, { missingIp: 'skip' });
        for (let i = 0; i < 3; i++) await skipping.http.get('/').set('X-Forwarded-For', junk).expect(200);
        expect(skipping.keys).toEqual([]);
        expect(skipping.ips).toEqual([junk, junk, junk]);
      });
    });
  }
}
