/**
 * What Go's golang.org/x/time/rate got wrong with reservations, as tests of ours (memory store; the
 * Redis port runs the first, second and fifth in packages/redis/test/reserve.test.ts):
 * - a reservation that was not ok changed later delays (golang/go#52584);
 * - Reservation.CancelAt restored the wrong number of tokens once other reservations had been made
 *   (golang/go#69419, #56924), and cancelling several in reverse order did not put the limiter back
 *   where it was at fractional rates (thrasher-corp/gocryptotrader#2371);
 * - a cancel at or after the reservation's instant, or twice, must give nothing back;
 * - Wait with a deadline: refuse at once when the wait exceeds it, grant one that fits exactly, and
 *   an already-cancelled context must not consume (golang/go#54541; songzhibin97/gkit#134).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, SlidingWindowLimiter, TokenBucketLimiter, reserve, wait } from '../../src/index.js';
import { type MemoryBinding } from '../../src/store/index.js';

const T0 = 1_700_000_000_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('Go regressions: reservations', () => {
  it('a reservation that was not ok changes no later delay (golang/go#52584)', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 3, refillPerSecond: 10, clock });
    expect(reserve(limiter, 'k', 3).delayMs).toBe(0);
    expect(reserve(limiter, 'k', 4).ok).toBe(false); // never fits
    expect(reserve(limiter, 'k', 2, { maxWaitMs: 100 }).ok).toBe(false); // too long (200 ms)
    expect(reserve(limiter, 'k', 1).delayMs).toBe(100); // as if the two had never been asked
  });

  it('cancelling in reverse order puts the key back bit for bit, at a fractional rate (golang/go#69419, gocryptotrader#2371)', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 60, clock });
    const binding = limiter.binding as MemoryBinding;
    reserve(limiter, 'k'); // the bucket is now empty
    const start = binding.snapshot('k');
    const booked = [1, 1, 1].map(() => reserve(limiter, 'k'));
    expect(booked.map((r) => r.delayMs)).toEqual([17, 34, 51]); // whole ms, rounded up: never early
    const full = binding.snapshot('k');
    expect(booked[0]?.cancel()).toBe(true); // the bucket of 1 refills by the next instant anyway: nothing to give back…
    expect(binding.snapshot('k')).toEqual(full); // …so the key is bit for bit as it was, and the later bookings keep theirs
    expect([...booked].reverse().map((r) => r.cancel())).toEqual([true, true, false]);
    expect(binding.snapshot('k')).toEqual(start);
    expect(reserve(limiter, 'k').delayMs).toBe(17);
  });

  it('a cancel gives back exactly what the booking took, never the units of a later one (golang/go#56924)', () => {
    const clock = new ManualClock(T0);
    const limiter = new SlidingWindowLimiter({ limit: 20, windowMs: 2000, clock });
    const binding = limiter.binding as MemoryBinding;
    reserve(limiter, 'k', 15);
    clock.advance(100);
    const before = binding.snapshot('k');
    const r = reserve(limiter, 'k', 5);
    expect(r.delayMs).toBe(0);
    clock.advance(0);
    expect(r.cancel()).toBe(false); // its instant has come: it may already have gone
    const later = reserve(limiter, 'k', 10);
    expect(later.ok).toBe(true);
    expect(binding.snapshot('k')).not.toEqual(before);
  });

  it('gives nothing back at or after the instant, nor twice', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    reserve(limiter, 'k');
    const a = reserve(limiter, 'k');
    clock.advance(999);
    expect(a.cancel()).toBe(true);
    expect(a.cancel()).toBe(false);
    const b = reserve(limiter, 'k');
    expect(b.delayMs).toBe(1);
    clock.advance(1);
    expect(b.cancel()).toBe(false);
  });
});

describe('Go regressions: wait with a bound (golang/go#54541)', () => {
  it('grants a wait of exactly maxWaitMs and refuses one millisecond more at once, recording nothing', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    reserve(limiter, 'k');
    await expect(wait(limiter, 'k', 1, { maxWaitMs: 999 })).rejects.toMatchObject({ reason: 'too-long', decision: { retryAfterMs: 1000 } });
    expect(vi.getTimerCount()).toBe(0); // refused before any timer: not after the time has passed
    let done = false;
    const granted = wait(limiter, 'k', 1, { maxWaitMs: 1000 }).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await granted;
    expect(done).toBe(true);
  });

  it('an already aborted signal rejects without taking the unit that was free (gkit#134)', async () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    await expect(wait(limiter, 'k', 1, { signal: AbortSignal.abort() })).rejects.toMatchObject({ reason: 'aborted' });
    expect(reserve(limiter, 'k').delayMs).toBe(0);
  });
});
