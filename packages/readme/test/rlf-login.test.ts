/**
 * rate-limiter-flexible's wiki pattern "login endpoint protection" (consecutive fails by username and
 * IP, and fails by IP per day; a successful login resets the first; a key is blocked once its count
 * passes the limit), run side by side: the wiki's own code on the real rate-limiter-flexible
 * (RateLimiterMemory, under vitest's fake timers), and MIGRATING.md's port to ratekeeper (charge,
 * usage, block and reset on BanLimiters, on a ManualClock kept at the same instant). The same schedule
 * of login attempts must get the same answer, request by request: 200, 400 or 429 at the same onset.
 * First the wiki's figures on a scripted schedule, then random schedules under small limits, where
 * blocks start, end and are reset often.
 *
 * Two differences of the setting, not of the pattern: the wiki counts consecutive fails for 90 days,
 * but RateLimiterMemory forgets any key after 1 ms when its duration passes 24.8 days (it expires keys
 * with setTimeout, which Node clamps to 1 ms beyond 2^31 − 1: the wiki runs it on Redis), so both sides
 * count them for 20 days here; and ratekeeper's fixed windows are aligned to the epoch where the
 * wiki's start at a key's first fail, so the schedules start on a window's boundary and stay inside
 * one day.
 */
import fc from 'fast-check';
import { BanLimiter, FixedWindowLimiter, ManualClock, MemoryStore } from '@ratekeeper/core';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** How long consecutive fails are counted (the wiki's 90 days are beyond RateLimiterMemory: see above). */
const CONSECUTIVE_MS = 20 * DAY;
/** A multiple of 20 days: ratekeeper's fixed windows are aligned to the epoch, the wiki's start at a key's first fail. */
const T0 = Math.ceil(1_700_000_000_000 / CONSECUTIVE_MS) * CONSECUTIVE_MS;

interface Limits {
  readonly byIpPerDay: number;
  readonly consecutive: number;
}
const WIKI: Limits = { byIpPerDay: 100, consecutive: 10 };

interface Attempt {
  readonly email: string;
  readonly ip: string;
  readonly password: string;
}
type Login = (attempt: Attempt) => Promise<number>;

/** The users the login knows: email → password. */
const USERS: Record<string, string> = { 'alice@example.com': 'right', 'bob@example.com': 'right' };
function authorise(email: string, password: string) {
  const exists = Object.hasOwn(USERS, email);
  return { exists, isLoggedIn: exists && USERS[email] === password };
}

/** The wiki's code, as it stands (answering the status instead of writing it). */
function wikiLogin(limits: Limits): Login {
  const limiterSlowBruteByIP = new RateLimiterMemory({ keyPrefix: 'login_fail_ip_per_day', points: limits.byIpPerDay, duration: 60 * 60 * 24, blockDuration: 60 * 60 * 24 });
  const limiterConsecutiveFailsByUsernameAndIP = new RateLimiterMemory({
    keyPrefix: 'login_fail_consecutive_username_and_ip',
    points: limits.consecutive,
    duration: CONSECUTIVE_MS / 1000,
    blockDuration: 60 * 60,
  });
  return async ({ email, ip, password }) => {
    const usernameIPkey = `${email}_${ip}`;
    const [resUsernameAndIP, resSlowByIP] = await Promise.all([limiterConsecutiveFailsByUsernameAndIP.get(usernameIPkey), limiterSlowBruteByIP.get(ip)]);
    let retrySecs = 0;
    if (resSlowByIP !== null && resSlowByIP.consumedPoints > limits.byIpPerDay) retrySecs = Math.round(resSlowByIP.msBeforeNext / 1000) || 1;
    else if (resUsernameAndIP !== null && resUsernameAndIP.consumedPoints > limits.consecutive) retrySecs = Math.round(resUsernameAndIP.msBeforeNext / 1000) || 1;
    if (retrySecs > 0) return 429;
    const user = authorise(email, password);
    if (!user.isLoggedIn) {
      try {
        const promises = [limiterSlowBruteByIP.consume(ip)];
        if (user.exists) promises.push(limiterConsecutiveFailsByUsernameAndIP.consume(usernameIPkey));
        await Promise.all(promises);
        return 400;
      } catch (rlRejected) {
        if (rlRejected instanceof Error) throw rlRejected;
        return 429;
      }
    }
    if (resUsernameAndIP !== null && resUsernameAndIP.consumedPoints > 0) await limiterConsecutiveFailsByUsernameAndIP.delete(usernameIPkey);
    return 200;
  };
}

/** MIGRATING.md's port (the section "Login brute-force protection"), on `clock`. */
function ratekeeperLogin(limits: Limits, clock: ManualClock): Login {
  const store = new MemoryStore();
  const byIp = new BanLimiter({ limiter: new FixedWindowLimiter({ name: 'login_fail_ip_per_day', limit: limits.byIpPerDay, windowMs: DAY, store, clock }), banMs: DAY });
  const byUserIp = new BanLimiter({
    limiter: new FixedWindowLimiter({ name: 'login_fail_consecutive_username_and_ip', limit: limits.consecutive, windowMs: CONSECUTIVE_MS, store, clock }),
    banMs: HOUR,
  });

  // A failed attempt always counts (rate-limiter-flexible's consume records it even when it rejects);
  // the first count past the limit blocks the key, after which its count starts over. Answers the wait, 0 if none.
  async function fail(limiter: typeof byIp, key: string, limit: number, blockMs: number): Promise<number> {
    const { used } = await limiter.charge(key);
    if (used <= limit) return 0;
    if (used === limit + 1) {
      await limiter.reset(key);
      await limiter.block(key, blockMs);
    }
    return (await limiter.usage(key)).resetAfterMs;
  }
  const blocked = (usage: { used: number; blockedMs: number }, limit: number) => usage.blockedMs > 0 || usage.used > limit;

  return async ({ email, ip, password }) => {
    const userIpKey = `${email}_${ip}`;
    const [userIp, slowIp] = await Promise.all([byUserIp.usage(userIpKey), byIp.usage(ip)]);
    if (blocked(slowIp, limits.byIpPerDay) || blocked(userIp, limits.consecutive)) return 429; // Retry-After: ceil(resetAfterMs / 1000)
    const user = authorise(email, password);
    if (!user.isLoggedIn) {
      const waits = await Promise.all([fail(byIp, ip, limits.byIpPerDay, DAY), user.exists ? fail(byUserIp, userIpKey, limits.consecutive, HOUR) : 0]);
      return waits.some((ms) => ms > 0) ? 429 : 400;
    }
    if (userIp.used > 0) await byUserIp.reset(userIpKey);
    return 200;
  };
}

/**
 * Mutant: the port the old MIGRATING.md led to (`get` → `peek`, which decides for one more unit;
 * a fail counted with `consume`, which records nothing once denied; the BanLimiter's own bans).
 */
function peekPortLogin(limits: Limits, clock: ManualClock): Login {
  const store = new MemoryStore();
  const byIp = new BanLimiter({ limiter: new FixedWindowLimiter({ name: 'ip', limit: limits.byIpPerDay, windowMs: DAY, store, clock }), banMs: DAY });
  const byUserIp = new BanLimiter({ limiter: new FixedWindowLimiter({ name: 'user', limit: limits.consecutive, windowMs: CONSECUTIVE_MS, store, clock }), banMs: HOUR });
  return async ({ email, ip, password }) => {
    const userIpKey = `${email}_${ip}`;
    if (!byIp.peek(ip).allowed || !byUserIp.peek(userIpKey).allowed) return 429;
    const user = authorise(email, password);
    if (!user.isLoggedIn) {
      const denied = [byIp.consume(ip), ...(user.exists ? [byUserIp.consume(userIpKey)] : [])].some((d) => !d.allowed);
      return denied ? 429 : 400;
    }
    byUserIp.reset(userIpKey);
    return 200;
  };
}

interface Step {
  /** Milliseconds to wait before the attempt. */
  readonly waitMs: number;
  readonly attempt: Attempt;
}

let clock: ManualClock;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: T0 });
  clock = new ManualClock(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

/** run plays `steps` on both logins, the two clocks moved together, and answers each side's statuses. */
async function run(limits: Limits, steps: readonly Step[]): Promise<{ wiki: number[]; ours: number[] }> {
  const wiki = wikiLogin(limits);
  const ours = ratekeeperLogin(limits, clock);
  const statuses = { wiki: [] as number[], ours: [] as number[] };
  for (const step of steps) {
    vi.advanceTimersByTime(step.waitMs);
    clock.set(Date.now());
    statuses.wiki.push(await wiki(step.attempt));
    statuses.ours.push(await ours(step.attempt));
  }
  return statuses;
}

const wrong = (email: string, ip = '203.0.113.7'): Attempt => ({ email, ip, password: 'wrong' });
const right = (email: string, ip = '203.0.113.7'): Attempt => ({ email, ip, password: 'right' });
const times = (n: number, attempt: Attempt, waitMs = 1_000): Step[] => Array.from({ length: n }, () => ({ waitMs, attempt }));

/** The wiki's figures on one schedule (the comments say what the wiki answers). */
const alice = 'alice@example.com';
const SCRIPT: Step[] = [
  ...times(12, wrong(alice)), // 10 × 400, then 429 (the 11th is counted and blocks for an hour)
  { waitMs: HOUR, attempt: right(alice) }, // the hour is over: the count started over, success
  ...times(4, wrong(alice)),
  { waitMs: 1_000, attempt: right(alice) }, // success resets the consecutive count…
  ...times(11, wrong(alice)), // …so 10 more fails are 400 again, the 11th 429
  ...times(103, wrong('nobody@example.com', '198.51.100.9'), 10), // unknown users: only the IP counts, 429 from the 101st
  { waitMs: DAY, attempt: wrong('nobody@example.com', '198.51.100.9') }, // the IP's day-long block is over: 400
];

describe("rate-limiter-flexible's login brute-force protection, side by side", () => {
  it("the wiki's figures: 429 from the 11th consecutive fail, the 101st fail of an IP in a day, the same request by request", async () => {
    const { wiki, ours } = await run(WIKI, SCRIPT);
    expect(wiki.slice(0, 13)).toEqual([...Array(10).fill(400), 429, 429, 200]); // the schedule does what it says
    expect(wiki.slice(-4)).toEqual([429, 429, 429, 400]);
    expect(ours).toEqual(wiki);
  });

  it('the port through peek and consume (mutant) answers differently, which the comparison catches', async () => {
    const { wiki } = await run(WIKI, SCRIPT);
    vi.setSystemTime(T0);
    const mutantClock = new ManualClock(T0);
    const mutant = peekPortLogin(WIKI, mutantClock);
    const statuses: number[] = [];
    for (const step of SCRIPT) {
      mutantClock.advance(step.waitMs);
      statuses.push(await mutant(step.attempt));
    }
    expect(statuses).not.toEqual(wiki);
  });

  it('random schedules under small limits: the same status, request by request', async () => {
    const attempt = fc.record({
      email: fc.constantFrom('alice@example.com', 'bob@example.com', 'nobody@example.com'),
      ip: fc.constantFrom('203.0.113.7', '198.51.100.9'),
      password: fc.constantFrom('right', 'wrong', 'wrong', 'wrong'),
    });
    // At most 20 steps of at most an hour and a second: every schedule stays inside the first day.
    const step = fc.record({ waitMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000 }), fc.constantFrom(HOUR - 1, HOUR, HOUR + 1_000)), attempt });
    await fc.assert(
      fc.asyncProperty(
        fc.record({ byIpPerDay: fc.integer({ min: 2, max: 6 }), consecutive: fc.integer({ min: 1, max: 4 }) }),
        fc.array(step, { maxLength: 20 }),
        async (limits, steps) => {
          vi.setSystemTime(T0);
          clock.set(T0);
          const { wiki, ours } = await run(limits, steps);
          expect(ours).toEqual(wiki);
        },
      ),
      { numRuns: 150 },
    );
  });
});
