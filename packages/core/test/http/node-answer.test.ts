/**
 * answerNode, the sequence every Node adapter runs once a request is decided: a response someone else
 * answered gets nothing; otherwise the decision is left on the request, the first limiter's headers go
 * through `first` and a later one's through `later`, and the request is passed on, or answered by the
 * handler with the denial's status (429, 503 for a 'closed' failure) or by the default body. Each
 * framework's steps are a recording NodeAnswer here; the adapters' own suites run the real ones.
 */
import { describe, expect, it } from 'vitest';
import { type NodeAnswer, answerNode, prepareRateLimit } from '../../src/adapter.js';
import { type Decision, ManualClock, TokenBucketLimiter } from '../../src/index.js';

type Req = { rateLimit?: Decision };
type Res = { sent: boolean; steps: string[] };

const steps = (handled: boolean): NodeAnswer<Req, Res, string, string> => ({
  answered: (res) => res.sent,
  holder: (req) => req,
  first: (res, name) => void res.steps.push(`first ${name}`),
  later: (res, name) => void res.steps.push(`later ${name}`),
  pass: (_req, res, next) => (res.steps.push('pass'), next),
  send: (_req, res, body) => (res.steps.push(`send ${body.status} ${body.contentType}`), 'sent'),
  handle: handled ? (_req, res, _next, decision, status) => (res.steps.push(`handle ${status} ${decision.allowed}`), 'handled') : undefined,
});

const setup = () => {
  const prepared = prepareRateLimit<Req>('rateLimit', { limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) }) });
  const allowed = prepared.limiter.consume('k') as Decision;
  const denied = prepared.limiter.consume('k') as Decision;
  return { prepared, allowed, denied };
};
const response = (sent = false): Res => ({ sent, steps: [] });

describe('answerNode', () => {
  it('passes an allowed request on after its headers, and leaves the decision on the request', () => {
    const { prepared, allowed } = setup();
    const req: Req = {};
    const res = response();
    expect(answerNode(prepared, steps(false), req, res, 'next', allowed)).toBe('next');
    expect(req.rateLimit).toBe(allowed);
    expect(res.steps).toEqual(['first RateLimit-Policy', 'first RateLimit', 'pass']);
  });

  it("writes a later limiter's headers through `later`", () => {
    const { prepared, allowed } = setup();
    const res = response();
    answerNode(prepared, steps(false), { rateLimit: allowed }, res, 'next', allowed);
    expect(res.steps).toEqual(['later RateLimit-Policy', 'later RateLimit', 'pass']);
  });

  it('answers a denial with the default body, or with the handler and the status preset', () => {
    const { prepared, denied } = setup();
    const plain = response();
    expect(answerNode(prepared, steps(false), {}, plain, 'next', denied)).toBe('sent');
    expect(plain.steps.at(-1)).toBe('send 429 application/problem+json');
    const handled = response();
    expect(answerNode(prepared, steps(true), {}, handled, 'next', denied)).toBe('handled');
    expect(handled.steps.at(-1)).toBe('handle 429 false');
  });

  it('touches nothing on a response someone else already answered', () => {
    const { prepared, denied } = setup();
    const req: Req = {};
    const res = response(true);
    expect(answerNode(prepared, steps(true), req, res, 'next', denied)).toBeUndefined();
    expect([req.rateLimit, res.steps]).toEqual([undefined, []]);
  });
});
