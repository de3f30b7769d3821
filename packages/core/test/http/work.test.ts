/**
 * The end of an admitted request's work on Node (work.ts), through the plan's watch on a response the
 * test drives: a lease is held until the response finishes or breaks after its status, or, when the
 * client left before any status, until the handler answers (res.write / res.end), until the adapter
 * says the handler ended (Koa's end()), or `abandonedMs` after the client left (499, on fake timers).
 * The outcome reported is the handler's answer, aborted. Two mutants, each caught by the check it
 * breaks: the watch of before (over at the client's disconnect) and one without the bound.
 * abandonedMs is validated at creation.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CompositeLimiter, ConcurrencyLimiter, type Decision, FixedWindowLimiter, ManualClock } from '../../src/index.js';
import { prepareRateLimit, type Finished, type Watch } from '../../src/adapter.js';
import type { Claim } from '../../src/http/settle/settle.js';
import { watcher } from '../../src/http/settle/work.js';
import { type FakeResponse, fakeResponse } from './support.js';

type Req = { readonly id: string };
type Step = (r: FakeResponse, work: ReturnType<Watch<Req>>) => void;

/** disconnectEnds is the watch of before: the work is taken as over at the 'close', whoever closed. */
const disconnectEnds =
  (claim: Claim<Req>): Watch<Req> =>
  (req, res, decision) => {
    const settle = claim(req, decision);
    const over = () => settle?.({ status: res.statusCode, aborted: !res.writableFinished, contentLength: undefined });
    if (res.closed === true) over();
    else res.once('close', over);
    return undefined;
  };

/** unbounded is the watch without the bound: it waits for the handler's answer for ever. */
const unbounded = (claim: Claim<Req>): Watch<Req> => watcher(claim, Infinity)!;

interface Played {
  /** Leases held after each step. */
  readonly held: number[];
  /** What countOutcome saw. */
  readonly outcomes: Finished[];
}

/**
 * play admits one request under a composite of a roomy rate limit and two leases (countOutcome
 * records what it sees), hands its response to the plan's watch (or to `mutant`'s, over the same
 * claim), then runs `steps`, recording the leases held after each.
 */
function play(steps: readonly Step[], options: { abandonedMs?: number; mutant?: (claim: Claim<Req>) => Watch<Req>; closed?: boolean } = {}): Played {
  const clock = new ManualClock(0);
  const leases = new ConcurrencyLimiter({ limit: 2, name: 'inflight', clock });
  const limiter = new CompositeLimiter([new FixedWindowLimiter({ limit: 100, windowMs: 60_000, clock }), leases]);
  const outcomes: Finished[] = [];
  const abandoned = options.abandonedMs === undefined ? {} : { abandonedMs: options.abandonedMs };
  const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: (r) => r.id, countOutcome: (o) => (outcomes.push(o), true), ...abandoned });
  const watch = options.mutant === undefined ? plan.watch! : options.mutant(plan.claim!);
  const req = { id: 'a' };
  const decision = plan.decide(req, undefined) as Decision;
  const r = fakeResponse(200, 2);
  if (options.closed === true) r.leave();
  const work = watch(req, r.res, decision);
  const held: number[] = [];
  for (const step of steps) {
    step(r, work);
    held.push(2 - (leases.peek('a').remaining + 1));
  }
  return { held, outcomes };
}

const finish: Step = (r) => r.finish();
const leave: Step = (r) => r.leave();
const answer =
  (status?: number): Step =>
  (r) =>
    r.answer(status);
const write: Step = (r) => void r.res.write('x');
const end =
  (status?: number): Step =>
  (_r, work) =>
    work?.end(status);
const wait =
  (ms: number): Step =>
  () =>
    void vi.advanceTimersByTime(ms);

const aborted = (status: number, contentLength?: number): Finished => ({ status, aborted: true, contentLength });

afterEach(() => void vi.useRealTimers());

/** heldUntilAnswered: the client leaves, the lease stays; the handler answers 401: released, and counted as that 401. */
function heldUntilAnswered(mutant?: (claim: Claim<Req>) => Watch<Req>): void {
  expect(play([leave, answer(401)], mutant === undefined ? {} : { mutant })).toEqual({ held: [1, 0], outcomes: [aborted(401, 2)] });
}

/** boundedWait: the client leaves and the handler never answers: the lease is back 60 s later, reported as 499. */
function boundedWait(mutant?: (claim: Claim<Req>) => Watch<Req>): void {
  vi.useFakeTimers();
  expect(play([leave, wait(59_999), wait(1), answer(200)], mutant === undefined ? {} : { mutant })).toEqual({ held: [1, 1, 0, 0], outcomes: [aborted(499)] });
}

describe('the end of the work on Node', () => {
  it('is the response finishing: released at its close, reported as sent', () => {
    expect(play([finish])).toEqual({ held: [0], outcomes: [{ status: 200, aborted: false, contentLength: 2 }] });
  });

  it('is the response breaking after its status was sent (mid-body): released at its close, aborted', () => {
    expect(play([(r) => r.broken()])).toEqual({ held: [0], outcomes: [aborted(200, 2)] });
  });

  it('holds the lease of a request whose client left until its handler answers, and reports that answer', () => {
    heldUntilAnswered();
  });

  it("takes the handler's first write as its answer (a stream, which never ends once the client left)", () => {
    expect(play([leave, write, answer()])).toEqual({ held: [1, 0, 0], outcomes: [aborted(200, 2)] });
  });

  it('holds the lease of a request whose client left before the decision arrived until its handler answers', () => {
    expect(play([answer(201)], { closed: true })).toEqual({ held: [0], outcomes: [aborted(201, 2)] });
    expect(play([end()], { closed: true })).toEqual({ held: [0], outcomes: [aborted(200, 2)] });
  });

  it('ends where the adapter says its handler ended (Koa: next() settled), with the status it gives for an error', () => {
    expect(play([leave, end()])).toEqual({ held: [1, 0], outcomes: [aborted(200, 2)] });
    expect(play([leave, end(500)])).toEqual({ held: [1, 0], outcomes: [aborted(500, 2)] });
    expect(play([end(), leave])).toEqual({ held: [1, 0], outcomes: [aborted(200, 2)] });
    expect(play([end(), finish])).toEqual({ held: [1, 0], outcomes: [{ status: 200, aborted: false, contentLength: 2 }] });
  });

  it('settles once, however many ends follow', () => {
    expect(play([leave, answer(401), end(500), answer(200), finish])).toEqual({ held: [1, 0, 0, 0, 0], outcomes: [aborted(401, 2)] });
  });

  it("the check catches a watch that ends the work at the client's disconnect (mutant)", () => {
    expect(() => heldUntilAnswered(disconnectEnds)).toThrow(/held: \[ \+0, \+0 \]/);
  });
});

describe('a handler that never answers a client that left', () => {
  it('keeps its lease abandonedMs (default 60 s) after the client left, then reports 499', () => {
    boundedWait();
  });

  it('the check catches a watch without the bound (mutant)', () => {
    expect(() => boundedWait(unbounded)).toThrow(/held: \[ 1, 1, 1, \+0 \]/);
  });

  it('waits for ever with Infinity, and not at all with 0', () => {
    vi.useFakeTimers();
    expect(play([leave, wait(2 ** 31 - 1), answer(200)], { abandonedMs: Infinity })).toEqual({ held: [1, 1, 0], outcomes: [aborted(200, 2)] });
    expect(play([leave, answer(200)], { abandonedMs: 0 })).toEqual({ held: [0, 0], outcomes: [aborted(499)] });
  });

  it('clears the bound once the handler answered', () => {
    vi.useFakeTimers();
    play([leave, answer(200)]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('abandonedMs', () => {
  const make = (abandonedMs: unknown) => () => prepareRateLimit<Req>('rateLimit', { abandonedMs: abandonedMs as number });

  it.each([
    [-1, RangeError, '-1'],
    [1.5, RangeError, '1.5'],
    [Number.NaN, RangeError, 'NaN'],
    [2 ** 31, RangeError, '2147483648'],
    [-Infinity, RangeError, '-Infinity'],
    ['60000', TypeError, '"60000"'],
    [null, TypeError, 'null'],
  ])('refuses %s', (value, type, shown) => {
    expect(make(value)).toThrowError(new type(`rateLimit: abandonedMs must be a whole number of milliseconds from 0 to 2147483647, or Infinity, got ${shown}`));
  });

  it('takes 0, 2147483647 and Infinity, and defaults to 60000', () => {
    for (const ok of [0, 2 ** 31 - 1, Infinity]) expect(make(ok)().abandonedMs).toBe(ok);
    expect(prepareRateLimit<Req>('rateLimit', {}).abandonedMs).toBe(60_000);
  });
});
