/**
 * Errors from the caller's functions go to the framework's error path (a 500, the server keeps
 * serving), and hostile text (CR/LF, NUL, U+2028, non-Latin-1) in keys or error messages never reaches
 * a header and never throws. A hook answering the wrong type (a skip that is not a boolean, a key that
 * is not a string, a bad cost) is an error too, never a silent count. Where the framework hides errors
 * behind a generic 500 body (Koa), the body is checked too.
 */
import { ManualClock, type RateLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { ContractBehaviour, Driver } from '../driver.js';
import { counting, expectPrintableHeaders } from '../support.js';

const HOSTILE = 'evil\r\nSet-Cookie: stolen=1\r\n\r\n\u0000\u2028\u007fé中文😀';

export function errorsSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      const app = (options: ContractBehaviour & { readonly limiter?: RateLimiter }) =>
        driver.serve({ limiter: new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock: new ManualClock(0) }), ...options });
      const genericBody = (text: string) => {
        if (driver.genericErrorBody !== undefined) expect(text).toBe(driver.genericErrorBody);
      };

      it.each([
        [
          'key',
          {
            key: () => {
              throw new Error('key broke');
            },
          },
        ],
        [
          'skip',
          {
            skip: () => {
              throw new Error('skip broke');
            },
          },
        ],
        [
          'cost',
          {
            cost: () => {
              throw new Error('cost broke');
            },
          },
        ],
        [
          'onDecision',
          {
            onDecision: () => {
              throw new Error('onDecision broke');
            },
          },
        ],
        [
          'handler',
          {
            limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) }),
            handler: () => {
              throw new Error('handler broke');
            },
          },
        ],
      ] as const)('an error thrown by %s goes to the error path and the server keeps serving', async (name, options) => {
        const { http, errors } = app(options as ContractBehaviour);
        const statuses = [];
        for (let i = 0; i < 3; i++) {
          const res = await http.get('/');
          statuses.push(res.status);
          if (res.status === 500) genericBody(res.text);
        }
        expect(statuses).toEqual(name === 'handler' ? [200, 500, 500] : [500, 500, 500]);
        expect(errors.map((e) => (e as Error).message)).toEqual(Array(name === 'handler' ? 2 : 3).fill(`${name} broke`));
      });

      it('an invalid cost from cost(req) is an error, never a silent admit', async () => {
        for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) {
          const { http, errors, ran } = app({ cost: () => bad });
          await http.get('/').expect(500);
          expect(errors).toHaveLength(1);
          expect(ran()).toBe(0);
        }
      });

      it('a skip function answering a non-boolean, at once or through a promise, is an error, never a silent count', async () => {
        for (const [answer, shown] of [
          [1, '1'],
          ['yes', '"yes"'],
          [{}, 'an object'],
        ] as const) {
          for (const async of [false, true]) {
            const counted = counting(new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock: new ManualClock(0) }));
            const { http, errors, ran } = app({ limiter: counted.limiter, skip: () => (async ? Promise.resolve(answer as never) : (answer as never)) });
            const res = await http.get('/').expect(500);
            genericBody(res.text);
            expect([(errors[0] as Error).name, (errors[0] as Error).message]).toEqual([
              'TypeError',
              `${driver.owner ?? 'rateLimit'}: skip(req) must return a boolean, got ${shown}`,
            ]);
            expect([counted.keys, ran()]).toEqual([[], 0]);
          }
        }
      });

      it('a key function returning a non-string is an error, never a shared bucket', async () => {
        const { http, errors } = app({ key: () => undefined as unknown as string });
        await http.get('/').expect(500);
        expect((errors[0] as Error).message).toBe(`${driver.owner ?? 'rateLimit'}: key(req) must return a string, got undefined`);
      });

      it('hostile keys count normally and never reach a header', async () => {
        const { http, errors } = app({ key: (req) => `${HOSTILE}${req.header('x-user') ?? ''}` });
        const statuses = [];
        for (const user of ['1', '1', '1', '2']) {
          const res = await http.get('/').set('X-User', user);
          statuses.push(res.status);
          expectPrintableHeaders(res.headers);
          expect(res.headers['set-cookie']).toBeUndefined();
          expect(JSON.stringify(res.headers)).not.toContain('evil');
          if (res.status === 429) expect(res.text).not.toContain('evil');
        }
        expect(statuses).toEqual([200, 200, 429, 200]);
        expect(errors).toEqual([]);
      });

      it.each(['key', 'skip', 'cost', 'onDecision'] as const)('a hostile error message from %s never reaches a header', async (name) => {
        const { http, errors } = app({
          [name]: () => {
            throw new Error(HOSTILE);
          },
        });
        const res = await http.get('/').expect(500);
        expectPrintableHeaders(res.headers);
        expect(res.headers['set-cookie']).toBeUndefined();
        genericBody(res.text);
        expect(errors).toHaveLength(1);
      });

      it('rejects a hostile policy name when the middleware is created', async () => {
        await expect(driver.construct({ name: HOSTILE })).rejects.toThrow(/^TokenBucketLimiter: name must be .+, got "evil\\r\\nSet-Cookie/);
      });
    });
  }
}
