/**
 * Allow and deny lists, decided before counting, through the real framework: an address on the deny
 * list gets 403 problem+json with no rate-limit field and no Retry-After and is never counted; one on
 * the allow list passes uncounted with no rate-limit field; deny wins over allow; an address one bit
 * outside a range is counted as usual. Client addresses come through a trusted X-Forwarded-For, as
 * behind a proxy (loopback has one address).
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { ContractBehaviour, ContractOptions, Driver } from '../driver.js';
import { counting } from '../support.js';

export function listsSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      function app(options: ContractBehaviour) {
        const counted = counting(new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock: new ManualClock(0) }));
        return { ...driver.serve({ limiter: counted.limiter, ...options }, { proxy: true }), keys: counted.keys };
      }
      const from = (ip: string) => ({ 'X-Forwarded-For': ip });

      it('answers an address on the deny list 403 problem+json, uncounted, with no rate-limit field', async () => {
        const { http, keys } = app({ denyList: ['203.0.113.0/24', '2001:db8::/32'] });
        for (const ip of ['203.0.113.9', '::ffff:203.0.113.77', '2001:db8:1::5']) {
          const res = await http.get('/').set(from(ip));
          expect(res.status).toBe(403);
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(JSON.parse(res.text)).toMatchObject({ status: 403, title: 'Forbidden' });
          expect([res.headers['ratelimit'], res.headers['ratelimit-policy'], res.headers['retry-after']]).toEqual([undefined, undefined, undefined]);
        }
        expect(keys).toEqual([]);
      });

      it('counts an address one bit outside a listed range as usual', async () => {
        const { http, keys } = app({ denyList: ['203.0.113.0/25'], allowList: ['198.51.100.0/25'] });
        expect((await http.get('/').set(from('203.0.113.128'))).status).toBe(200);
        const res = await http.get('/').set(from('198.51.100.128'));
        expect([res.status, typeof res.headers['ratelimit']]).toEqual([200, 'string']);
        expect(keys).toEqual(['203.0.113.128', '198.51.100.128']);
      });

      it('lets an address on the allow list through uncounted and unlimited, with no rate-limit field', async () => {
        const { http, keys } = app({ allowList: ['198.51.100.7'] });
        for (let i = 0; i < 5; i++) {
          const res = await http.get('/').set(from('198.51.100.7'));
          expect([res.status, res.headers['ratelimit']]).toEqual([200, undefined]);
        }
        expect(keys).toEqual([]);
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await http.get('/').set(from('198.51.100.8'))).status);
        expect(statuses).toEqual([200, 200, 429]);
      });

      it('denies an address on both lists', async () => {
        const { http } = app({ allowList: ['10.0.0.0/8'], denyList: ['10.1.0.0/16'] });
        expect((await http.get('/').set(from('10.1.2.3'))).status).toBe(403);
        expect((await http.get('/').set(from('10.2.2.3'))).status).toBe(200);
      });

      it('refuses a bad entry at creation, naming the list and the entry', async () => {
        await expect(driver.construct({ denyList: ['10.0.0.0/33'] } as ContractOptions)).rejects.toThrow(/denyList\[0\] must be an IP address or a CIDR range/);
      });
    });
  }
}
