/**
 * Remote, against a scripted fake client (no Redis): every call resolves by its deadline, with the
 * reply or a Failure, never a rejection; late replies and late rejections are swallowed; after a
 * failure one PING at a time probes in the background; any answer closes the breaker; NOSCRIPT is answered by one
 * EVAL. Timeouts here are real (tens of milliseconds): they are the store's own deadlines, not
 * limiter time.
 */
import { describe, expect, it } from 'vitest';
import type { Send } from './client.js';
import { Failure } from '@ratekeeper/core/store';
import { RedisRemote as Remote } from './remote.js';

const SCRIPT = { source: 'return 1', sha: 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db' };

/** A fake client: each call gets the next scripted behaviour; every call is logged. */
function fake(...behaviours: ((args: string[]) => Promise<unknown>)[]) {
  const calls: string[][] = [];
  const send: Send = (args) => {
    calls.push(args.slice());
    const next = behaviours.length > 1 ? behaviours.shift() : behaviours[0];
    return (next as (args: string[]) => Promise<unknown>)(args);
  };
  return { send, calls };
}

/** same is the interpret that hands back the reply or Failure as it is. */
const same = (ended: unknown) => ended;

/** evalsha is the command that runs SCRIPT on `key`. */
const evalsha = (key: string) => ['EVALSHA', SCRIPT.sha, '1', key];

const hang = () => new Promise<never>(() => {});
const answer = (value: unknown) => () => Promise.resolve(value);
const error = (message: string) => () => Promise.reject(new Error(message));
const later = (ms: number, settle: 'resolve' | 'reject') => () =>
  new Promise((resolve, reject) => setTimeout(() => (settle === 'resolve' ? resolve('late') : reject(new Error('late'))), ms));

describe('Remote', () => {
  it('answers a Failure("timeout") at the deadline when the client never answers', async () => {
    const { send } = fake(hang);
    const remote = new Remote(send, 20, 0);
    const start = performance.now();
    const outcome = await remote.eval(SCRIPT, evalsha('k'), 'k', same);
    expect(outcome).toBeInstanceOf(Failure);
    expect((outcome as Failure).reason).toBe('timeout');
    expect(performance.now() - start).toBeGreaterThanOrEqual(19);
    expect(performance.now() - start).toBeLessThan(200);
  });

  it('swallows a reply and a rejection that arrive after the deadline', async () => {
    const { send } = fake(later(200, 'resolve'), later(200, 'reject'));
    const remote = new Remote(send, 20, 0);
    const outcomes = await Promise.all([remote.eval(SCRIPT, evalsha('a'), 'a', same), remote.eval(SCRIPT, evalsha('b'), 'b', same)]);
    expect(outcomes.map((o) => (o as Failure).reason)).toEqual(['timeout', 'timeout']);
    await new Promise((resolve) => setTimeout(resolve, 220));
  });

  it('turns a client that throws synchronously into a connection failure', async () => {
    const remote = new Remote(
      () => {
        throw new Error('The client is closed');
      },
      20,
      0,
    );
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toMatchObject({ reason: 'connection' });
  });

  it('classifies an error reply as a reply failure, which leaves the breaker closed', async () => {
    const { send, calls } = fake(error('WRONGTYPE Operation against a key'), answer([1]));
    const remote = new Remote(send, 20, 10_000);
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toMatchObject({ reason: 'reply' });
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toEqual([1]);
    expect(calls).toHaveLength(2);
  });

  it('probes with a PING in the background, one at a time, no sooner than the probe interval: never with a user call', async () => {
    const { send, calls } = fake(error('connect ECONNREFUSED'), hang);
    const remote = new Remote(send, 20, 50);
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toMatchObject({ reason: 'connection' });
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toMatchObject({ reason: 'unavailable' });
    expect(calls).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const started = performance.now();
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toMatchObject({ reason: 'unavailable' });
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toMatchObject({ reason: 'unavailable' });
    expect(performance.now() - started).toBeLessThan(20);
    expect(calls.slice(1)).toEqual([['PING']]);
  });

  it('closes the breaker as soon as a probe is answered', async () => {
    const { send, calls } = fake(error('connect ECONNREFUSED'), answer('PONG'), answer([1]));
    const remote = new Remote(send, 20, 0);
    await remote.eval(SCRIPT, evalsha('k'), 'k', same);
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toMatchObject({ reason: 'unavailable' });
    await Promise.resolve();
    expect(remote.down).toBe(false);
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toEqual([1]);
    expect(calls.map((c) => c[0])).toEqual(['EVALSHA', 'PING', 'EVALSHA']);
  });

  it('answers NOSCRIPT with one EVAL of the source, and reports a second NOSCRIPT as a reply failure', async () => {
    const { send, calls } = fake(error('NOSCRIPT No matching script'), answer([1]));
    const remote = new Remote(send, 20, 0);
    expect(await remote.eval(SCRIPT, ['EVALSHA', SCRIPT.sha, '1', 'k', 'x'], 'k', same)).toEqual([1]);
    expect(calls).toEqual([
      ['EVALSHA', SCRIPT.sha, '1', 'k', '0'],
      ['EVAL', SCRIPT.source, '1', 'k', '0'],
    ]);
    const again = fake(error('NOSCRIPT No matching script'));
    expect(await new Remote(again.send, 20, 0).eval(SCRIPT, evalsha('k'), 'k', same)).toMatchObject({ reason: 'reply' });
    expect(again.calls).toHaveLength(2);
  });

  it('times out each of several calls in flight by its own deadline', async () => {
    const { send } = fake(hang);
    const remote = new Remote(send, 40, 0);
    const settled: string[] = [];
    const first = remote.eval(SCRIPT, evalsha('a'), 'a', same).then((o) => settled.push('first') && o);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const sentAt = performance.now();
    const second = remote.command(['DEL', 'b'], 'b', same).then((o) => settled.push('second') && o);
    expect(await first).toMatchObject({ reason: 'timeout' });
    expect(await second).toMatchObject({ reason: 'timeout' });
    expect(settled).toEqual(['first', 'second']);
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(39);
  });

  it('waits for a Redis that answers a queue, however long the queue takes', async () => {
    // One reply every 10 ms, in order: 20 calls take 200 ms, four times the 50 ms timeout, and well
    // inside the 500 ms a call may wait while others are answered (MAX_WAIT_FACTOR): a loaded machine
    // that stretches the timer 2.5 times over still answers every call (at 5 ms and a 20 ms timeout,
    // 150 ms of a 200 ms bound, one CI run's timers stretched the last calls past it).
    const waiting: ((value: unknown) => void)[] = [];
    const tick = setInterval(() => waiting.shift()?.([1]), 10);
    const remote = new Remote(() => new Promise((resolve) => waiting.push(resolve)), 50, 0);
    const start = performance.now();
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => remote.eval(SCRIPT, evalsha(`k${i}`), `k${i}`, same)));
    clearInterval(tick);
    expect(outcomes).toEqual(Array(20).fill([1]));
    expect(performance.now() - start).toBeGreaterThan(150);
  });

  it('fails a call left unanswered for 10 × timeoutMs while others are answered, and keeps the breaker closed', async () => {
    // A stalled Redis Cluster node among answering ones: its call never comes back, the others do.
    const { send, calls } = fake((args) => (args[3] === 'stuck' ? hang() : new Promise((resolve) => setTimeout(() => resolve([1]), 2))));
    const remote = new Remote(send, 20, 10_000);
    const start = performance.now();
    const stuck = remote.eval(SCRIPT, [...evalsha('stuck'), '0'], 'stuck', same);
    const steady = setInterval(() => void remote.eval(SCRIPT, [...evalsha('k'), '0'], 'k', same), 5);
    const outcome = await stuck;
    clearInterval(steady);
    expect(outcome).toMatchObject({ reason: 'timeout', breaksConnection: false });
    expect(performance.now() - start).toBeGreaterThanOrEqual(200);
    expect(performance.now() - start).toBeLessThan(400);
    const sent = calls.length;
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toEqual([1]);
    expect(calls).toHaveLength(sent + 1);
  });

  it('fails the calls of a Redis that stops answering in the middle of a queue, each after its own deadline', async () => {
    const waiting: ((value: unknown) => void)[] = [];
    let answered = 0;
    const tick = setInterval(() => answered < 10 && (answered++, waiting.shift()?.([1])), 5);
    const remote = new Remote(() => new Promise((resolve) => waiting.push(resolve)), 20, 10_000);
    const start = performance.now();
    const ended: number[] = [];
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => remote.eval(SCRIPT, evalsha(`k${i}`), `k${i}`, same).then((o) => (ended.push(performance.now() - start), o))),
    );
    clearInterval(tick);
    expect(outcomes.slice(0, 10)).toEqual(Array(10).fill([1]));
    expect(outcomes.slice(10).map((o) => (o as Failure).reason)).toEqual(Array(20).fill('timeout'));
    // The last answer came at about 50 ms; nothing for 20 ms more means stopped.
    expect(Math.max(...ended)).toBeLessThan(150);
  });

  it('sends deadline 0 until it knows the server clock, then a deadline timeoutMs after each send', async () => {
    const serverMs = 1_700_000_000_000;
    const { send, calls } = fake(answer(-serverMs), answer([1]));
    const remote = new Remote(send, 20, 0);
    const before = performance.now();
    expect(await remote.eval(SCRIPT, [...evalsha('k'), '0'], 'k', same)).toEqual([1]);
    const after = performance.now();
    expect(calls.map((c) => c.length)).toEqual([5, 5]);
    expect(calls[0]?.[4]).toBe('0');
    const deadline = Number(calls[1]?.[4]);
    // The sample is taken at most (after - before) ms after the server read serverMs.
    expect(deadline).toBeGreaterThanOrEqual(serverMs + 20 - Math.ceil(after - before) - 1);
    expect(deadline).toBeLessThanOrEqual(serverMs + 20);
  });

  it('treats an expired reply as an answer: the call goes out again with a deadline', async () => {
    const { send, calls } = fake(answer(-5_000), answer([1]));
    const remote = new Remote(send, 20, 0);
    expect(await remote.eval(SCRIPT, [...evalsha('k'), '0'], 'k', same)).toEqual([1]);
    expect(calls.map((c) => Number(c[4]) > 0)).toEqual([false, true]);
    expect(await remote.eval(SCRIPT, evalsha('k'), 'k', same)).toEqual([1]);
  });

  it('never reads a positive integer reply, a compact admission, as expired', async () => {
    const { send, calls } = fake(answer(3));
    expect(await new Remote(send, 20, 0).eval(SCRIPT, evalsha('k'), 'k', same)).toBe(3);
    expect(calls).toHaveLength(1);
  });
});
