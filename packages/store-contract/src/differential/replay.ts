/**
 * Replays: one history, step by step, on the reference model (core's pure steps, run by a MemoryStore)
 * and on the store under test, with one ManualClock read by both, every answer compared field for
 * field and bit for bit (-0 and fractional figures included): a decision with `toEqual`, allow's
 * verdict, a reservation's ok/delayMs/decision and a cancel's answer. A reset or a refund answers
 * nothing to compare; its effect shows in the steps after it. The first difference throws, naming the
 * step (`step 3 (consume cost 2 at 1700000000000)`). The store must report no failure while replaying
 * (a store that emits 'failure' events is listened to).
 *
 * `together` fires every call of a history in one turn, awaiting none (a batching store then decides
 * them in one batch, which must decide as the same calls one by one).
 */
import { BanLimiter, CompositeLimiter, ConcurrencyLimiter, ManualClock, MemoryStore, type Mode, type RateLimiter, type Reservation, type Store, reserve } from '@ratekeeper/core';
import { expect } from 'vitest';
import { type AnySpec, type BookingStep, Instants, type LeaseSpec, type Step, makeLimiter } from './histories.js';

/** Run: what one replay needs besides its history. */
export interface Run {
  readonly store: Store;
  /** fresh answers a policy name never used before (one per member). */
  readonly fresh: () => string;
  /** The keys a step's `key` picks from (modulo their number). */
  readonly keys: readonly string[];
  readonly graceMs: number;
  readonly marginMs: number;
  readonly together: boolean;
  /** Start each history after every instant replayed before it in this process (see `clockFrom`). */
  readonly monotone?: boolean;
}

/** reached: the latest instant a replay's clock of this process was set to. */
let reached = Number.NEGATIVE_INFINITY;

/** Tracked is a ManualClock that keeps `reached`. */
class Tracked extends ManualClock {
  override set(ms: number): number {
    const at = super.set(ms);
    if (at > reached) reached = at;
    return at;
  }

  override advance(ms: number): number {
    const at = super.advance(ms);
    if (at > reached) reached = at;
    return at;
  }
}

/**
 * clockFrom: the instants and the clock of one history from `start`. A store that sweeps expired rows
 * by a batch's instant (a SQL store in 'client' time) may still run the sweep of one history while the
 * next replays; a history that began before the instants the previous one reached could find its rows
 * swept under it (seen on a machine with two CPU burners). With `run.monotone` the history is shifted
 * as a whole to begin after them: the reference model replays the same instants, so the comparison is
 * unchanged, and a failure names the instants as replayed.
 */
function clockFrom(run: Run, start: number, members?: readonly AnySpec[]): { instants: Instants; clock: ManualClock } {
  const from = run.monotone === true && start <= reached ? reached + 1 : start;
  const instants = members === undefined ? new Instants(from, run.graceMs) : new Instants(from, run.graceMs, members, run.marginMs);
  const clock = new Tracked(instants.start);
  if (instants.start > reached) reached = instants.start;
  return { instants, clock };
}

type Answer = (check: Promise<void>) => Promise<void> | undefined;

/** limiterOf: one member's limiter, or a composite of them, each under its name. */
function limiterOf<M extends Mode>(members: readonly AnySpec[], on: Store<M>, clock: ManualClock, names: readonly string[]): RateLimiter<M> {
  const limiters = members.map((spec, i) => makeLimiter(spec, on, clock, names[i]));
  return limiters.length === 1 ? (limiters[0] as RateLimiter<M>) : (new CompositeLimiter<M>(limiters) as RateLimiter<M>);
}

/**
 * watchFailures listens to what `store` reports failing (its 'failure' events, when it has them);
 * `end` stops listening and requires that nothing was reported.
 */
function watchFailures(store: Store): { end(): void } {
  const seen: unknown[] = [];
  const emitter = store as unknown as { on?: (event: string, f: (info: unknown) => void) => void; off?: (event: string, f: (info: unknown) => void) => void };
  const listener = (info: unknown) => void seen.push(info);
  if (typeof emitter.on === 'function') emitter.on('failure', listener);
  return {
    end: () => {
      emitter.off?.('failure', listener);
      expect(seen, 'the store reported failures while replaying').toEqual([]);
    },
  };
}

/** twins: the reference limiter (a MemoryStore) and the one under test, on one clock, under the same fresh names. */
function twins(run: Run, members: readonly AnySpec[], start: number) {
  const { instants, clock } = clockFrom(run, start, members);
  const names = members.map(() => run.fresh());
  return { instants, clock, memory: limiterOf(members, new MemoryStore(), clock, names), store: limiterOf(members, run.store, clock, names) };
}

/**
 * paced runs the checks one by one, or (together) collects them for the end: `answer` then answers
 * undefined, which the body must not await, so that every call is made in the same turn.
 */
async function paced(together: boolean, body: (answer: Answer) => Promise<void>): Promise<void> {
  const pending: Promise<void>[] = [];
  await body((check) => (together ? void pending.push(check) : check));
  await Promise.all(pending);
}

/** step answers one rate step on both limiters as a check of the store's answer. */
function rateStep(memory: RateLimiter<'sync'>, store: RateLimiter, step: Step, key: string, where: string): Promise<void> {
  if (step.op === 'reset' || step.op === 'refund') {
    memory[step.op]?.(key, step.cost);
    return Promise.resolve(store[step.op]?.(key, step.cost)).then(() => undefined);
  }
  if (step.op === 'allow') {
    const want = memory.allow(key, step.cost);
    return Promise.resolve(store.allow(key, step.cost)).then((got) => void expect(got, where).toBe(want));
  }
  const want = memory[step.op](key, step.cost);
  return Promise.resolve(store[step.op](key, step.cost)).then((got) => void expect(got, where).toEqual(want));
}

const whereOf = (i: number, step: Step | BookingStep, at: number, route = '') => `step ${i} (${route}${step.op} cost ${step.cost} at ${at})`;

/** replayRates replays consumes, peeks, allows, resets and refunds of one limiter or a composite. */
export async function replayRates(run: Run, members: readonly AnySpec[], start: number, history: readonly Step[]): Promise<void> {
  const { instants, clock, memory, store } = twins(run, members, start);
  const failures = watchFailures(run.store);
  await paced(run.together, async (answer) => {
    for (const [i, step] of history.entries()) {
      clock.set(instants.next(step.dt));
      const check = answer(rateStep(memory, store, step, run.keys[step.key % run.keys.length] as string, whereOf(i, step, clock.now())));
      if (check !== undefined) await check;
    }
  });
  failures.end();
}

/** booked is what a reservation answered (its `at` counts from when the answer arrived, so it is left out). */
function booked(r: Reservation<Mode>) {
  return { ok: r.ok, delayMs: r.delayMs, decision: r.decision };
}

/** replayBookings replays reservations and cancels between consumes, peeks, resets and refunds, one call at a time. */
export async function replayBookings(run: Run, members: readonly AnySpec[], start: number, history: readonly BookingStep[]): Promise<void> {
  const { instants, clock, memory, store } = twins(run, members, start);
  const failures = watchFailures(run.store);
  const reservations: [Reservation<'sync'>, Reservation<Mode>][] = [];
  for (const [i, step] of history.entries()) {
    clock.set(instants.next(step.dt));
    const key = run.keys[step.key % run.keys.length] as string;
    const where = whereOf(i, step, clock.now());
    if (step.op === 'reserve') {
      const options = step.maxWaitMs === undefined ? {} : { maxWaitMs: step.maxWaitMs };
      const want = reserve(memory, key, step.cost, options);
      const got = await reserve(store, key, step.cost, options);
      expect(booked(got), where).toEqual(booked(want));
      reservations.push([want, got]);
    } else if (step.op === 'cancel') {
      const pair = reservations[(step.pick ?? 0) % Math.max(1, reservations.length)];
      if (pair !== undefined) {
        const want = pair[0].cancel();
        expect(await pair[1].cancel(), where).toBe(want);
      }
    } else {
      await rateStep(memory, store, step as Step, key, where);
    }
  }
  failures.end();
}

/**
 * replayBans replays a BanLimiter over `spec`'s limiter; a step whose route is 0 goes through a
 * composite of that limiter and `other` instead (it shares the algorithm's rows but not the ban, as on
 * the memory store), when `other` is given.
 */
export async function replayBans(
  run: Run,
  spec: AnySpec,
  other: AnySpec | undefined,
  banMs: number,
  start: number,
  history: readonly Step[],
  routes: readonly number[],
): Promise<void> {
  const { instants, clock } = clockFrom(run, start, other === undefined ? [spec] : [spec, other]);
  const names = [run.fresh(), run.fresh()];
  const make = <M extends Mode>(on: Store<M>) => {
    const limiter = makeLimiter(spec, on, clock, names[0]);
    const ban = new BanLimiter<M>({ limiter, banMs });
    return { ban, composite: other === undefined ? ban : new CompositeLimiter<M>([limiter, makeLimiter(other, on, clock, names[1])]) };
  };
  const memory = make(new MemoryStore());
  const store = make(run.store);
  const failures = watchFailures(run.store);
  await paced(run.together, async (answer) => {
    for (const [i, step] of history.entries()) {
      clock.set(instants.next(step.dt));
      const composite = other !== undefined && routes[i] === 0;
      const where = whereOf(i, step, clock.now(), composite ? 'composite ' : '');
      const key = run.keys[step.key % run.keys.length] as string;
      const check = answer(rateStep(composite ? memory.composite : memory.ban, composite ? store.composite : store.ban, step, key, where));
      if (check !== undefined) await check;
    }
  });
  failures.end();
}

/** replayLeases replays a ConcurrencyLimiter's acquires, peeks, allows, releases (a step's refund) and resets. */
export async function replayLeases(run: Run, spec: LeaseSpec, start: number, history: readonly Step[]): Promise<void> {
  const { instants, clock } = clockFrom(run, start);
  const name = run.fresh();
  const memory = new ConcurrencyLimiter({ limit: spec.limit, store: new MemoryStore(), clock, name }) as RateLimiter<'sync'>;
  const store = new ConcurrencyLimiter<Mode>({ limit: spec.limit, store: run.store as Store<Mode>, clock, name }) as RateLimiter;
  const failures = watchFailures(run.store);
  await paced(run.together, async (answer) => {
    for (const [i, step] of history.entries()) {
      clock.set(instants.next(step.dt));
      const check = answer(rateStep(memory, store, step, run.keys[step.key % run.keys.length] as string, whereOf(i, step, clock.now())));
      if (check !== undefined) await check;
    }
  });
  // The leases still held go back, so that no renewal outlives the replay.
  for (const key of run.keys) await store.reset(key);
  failures.end();
}
