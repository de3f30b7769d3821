/**
 * `req.rateLimit` is an accessor on the app's request prototype, its values kept per request
 * (src/decision-slot.ts), on every Express major, through real HTTP: each request reads its own
 * decision, nothing before the limiter, never another request's; other code may still assign it; a
 * prototype that already has a `rateLimit` of its own is left alone and gets the plain property.
 */
import { listen } from '@ratekeeper/adapter-contract';
import type { Decision } from '@ratekeeper/core';
import type { Request, RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { expresses } from './helpers.js';

interface Seen {
  before: unknown;
  after: Decision | undefined;
  own: boolean;
}

describe.each(expresses)('req.rateLimit on %s', (_label, express) => {
  function app(limit: RequestHandler, seen: Seen[], extra?: (app: ReturnType<typeof express>) => void) {
    const a = express();
    extra?.(a);
    a.use((req: Request, _res, next) => {
      seen.push({ before: req.rateLimit, after: undefined, own: false });
      next();
    });
    a.use(limit);
    a.get('/', (req: Request, res) => {
      const s = seen[seen.length - 1] as Seen;
      s.after = req.rateLimit;
      s.own = Object.hasOwn(req, 'rateLimit');
      res.send('ok');
    });
    return a;
  }

  it('each request reads its own decision, undefined before the limiter, and the request gains no property', async () => {
    const seen: Seen[] = [];
    const { http } = listen(app(rateLimit({ algorithm: 'fixed-window', limit: 5, windowMs: 60_000 }), seen));
    for (let i = 0; i < 5; i++) expect((await http.get('/')).status).toBe(200);
    expect(seen.map((s) => s.before)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(seen.map((s) => s.after?.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(seen.map((s) => s.own)).toEqual([false, false, false, false, false]);
  });

  it("a denied request's handler finds its decision on req.rateLimit", async () => {
    const got: (Decision | undefined)[] = [];
    const a = express();
    a.use(
      rateLimit({
        algorithm: 'fixed-window',
        limit: 1,
        windowMs: 60_000,
        handler: (req, res, d) => {
          got.push(req.rateLimit === d ? d : undefined);
          res.end();
        },
      }),
    );
    a.get('/', (_req, res) => void res.send('ok'));
    const { http } = listen(a);
    expect((await http.get('/')).status).toBe(200);
    expect((await http.get('/')).status).toBe(429);
    expect(got).toHaveLength(1);
    expect(got[0]?.allowed).toBe(false);
  });

  it('other code may assign req.rateLimit, and reads back what it wrote on that request only', async () => {
    const seen: Seen[] = [];
    const marker = { allowed: true, remaining: 99 } as unknown as Decision;
    const a = express();
    a.use(rateLimit({ algorithm: 'fixed-window', limit: 5, windowMs: 60_000 }));
    a.get('/mark', (req: Request, res) => {
      req.rateLimit = marker;
      res.send(req.rateLimit === marker ? 'same' : 'lost');
    });
    a.get('/', (req: Request, res) => {
      seen.push({ before: undefined, after: req.rateLimit, own: Object.hasOwn(req, 'rateLimit') });
      res.send('ok');
    });
    const { http } = listen(a);
    expect((await http.get('/mark')).text).toBe('same');
    expect((await http.get('/')).status).toBe(200);
    expect(seen[0]?.after).not.toBe(marker);
    expect(seen[0]?.after?.remaining).toBe(3);
  });

  it('leaves a prototype with its own rateLimit alone: the request gets the plain property', async () => {
    const seen: Seen[] = [];
    const limit = rateLimit({ algorithm: 'fixed-window', limit: 5, windowMs: 60_000 });
    const a = app(limit, seen, (x) => {
      Object.defineProperty(x.request, 'rateLimit', { value: undefined, writable: true, configurable: true, enumerable: false });
    });
    const { http } = listen(a);
    expect((await http.get('/')).status).toBe(200);
    expect((await http.get('/')).status).toBe(200);
    expect(seen.map((s) => s.after?.remaining)).toEqual([4, 3]);
    expect(seen.map((s) => s.own)).toEqual([true, true]);
    expect(Object.getOwnPropertyDescriptor(a.request, 'rateLimit')?.get).toBeUndefined();
  });

  it('the last of two stacked limiters is the one read', async () => {
    const seen: Seen[] = [];
    const a = express();
    a.use((req: Request, _res, next) => {
      seen.push({ before: req.rateLimit, after: undefined, own: false });
      next();
    });
    a.use(rateLimit({ algorithm: 'fixed-window', limit: 9, windowMs: 60_000, name: 'outer' }));
    a.use(rateLimit({ algorithm: 'fixed-window', limit: 5, windowMs: 60_000, name: 'inner' }));
    a.get('/', (req: Request, res) => {
      (seen[seen.length - 1] as Seen).after = req.rateLimit;
      res.send('ok');
    });
    const { http } = listen(a);
    const res = await http.get('/');
    expect(res.status).toBe(200);
    expect(seen[0]?.before).toBeUndefined();
    expect(seen[0]?.after?.policy.name).toBe('inner');
    expect(res.headers.ratelimit).toMatch(/^"outer";r=8;t=\d+, "inner";r=4;t=\d+$/);
  });
});
