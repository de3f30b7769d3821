/**
 * Remote when the client says its connection is gone (`lost`) or back (`found`), with a store's
 * background `probe`, against scripted requests (no server):
 * - lost opens the breaker at once, a cold start included, and fails at once every outstanding
 *   decision that carried no deadline from a clock sample (it can change nothing); one that carried a
 *   real deadline keeps it, so nothing is decided both locally and by the server (the mutant that
 *   fails every call on lost is caught);
 * - while the breaker is open no user's call is sent: the probe goes, one at a time, and its answer
 *   closes the breaker; found sends it at once.
 * The timeoutMs is 60 s: a call that settles within the test did not wait for it.
 */
import { describe, expect, it } from 'vitest';
import { Failure, Remote, type Request } from '../../src/store/index.js';

const HUGE_TIMEOUT_MS = 60_000;
const same = (ended: unknown) => ended;
const failureOf = (error: unknown) => new Failure('connection', error);
/** expiredAt reads an 'expired' answer as in the stores: a non-positive number is the server's time, negated. */
const expiredAt = (reply: unknown) => (typeof reply === 'number' && reply <= 0 ? -reply : undefined);

/** A server double: each request waits until the test answers it. */
function server() {
  const sent: { deadline: number; kind: string; answer: (reply: unknown) => void; fail: (error: unknown) => void }[] = [];
  const request = (kind: string, deadlined = true): Request => ({
    deadlined,
    send: (deadline) => new Promise((answer, fail) => sent.push({ deadline, kind, answer, fail })),
  });
  return { sent, request };
}

function remoteOn(s: ReturnType<typeof server>, withProbe = true): Remote {
  return new Remote({ timeoutMs: HUGE_TIMEOUT_MS, probeIntervalMs: 0, failureOf, expiredAt, ...(withProbe ? { probe: () => s.request('ping', false) } : {}) });
}

describe('Remote: a connection the client says is lost', () => {
  it('fails a cold call at once and opens the breaker: no silence is waited for', async () => {
    const s = server();
    const remote = remoteOn(s);
    const call = remote.run(s.request('decide'), same);
    remote.lost(new Error('connect ECONNREFUSED'));
    expect(await call).toMatchObject({ reason: 'connection' });
    expect(remote.down).toBe(true);
    expect(await remote.run(s.request('decide'), same)).toMatchObject({ reason: 'unavailable' });
    expect(s.sent.map((x) => x.kind)).toEqual(['decide', 'ping']);
  });

  it('keeps a call that carried a real deadline until that deadline: it may still be applied', async () => {
    const s = server();
    const remote = remoteOn(s);
    const first = remote.run(s.request('decide'), same);
    (s.sent[0] as { answer: (r: unknown) => void }).answer(-Date.now());
    await Promise.resolve();
    (s.sent[1] as { answer: (r: unknown) => void }).answer('decided');
    expect(await first).toBe('decided');
    let settled = false;
    const dated = remote.run(s.request('decide'), same).then(() => {
      settled = true;
    });
    remote.lost();
    await new Promise((resolve) => setImmediate(resolve));
    expect((s.sent[2] as { deadline: number }).deadline).toBeGreaterThan(0);
    expect(settled).toBe(false);
    void dated;
  });

  it('probes in the background, never with a user call, and its answer closes the breaker', async () => {
    const s = server();
    const remote = remoteOn(s);
    remote.lost();
    for (let i = 0; i < 5; i++) expect(await remote.run(s.request('decide'), same)).toMatchObject({ reason: 'unavailable' });
    expect(s.sent.map((x) => x.kind)).toEqual(['ping']);
    (s.sent[0] as { answer: (r: unknown) => void }).answer('PONG');
    await Promise.resolve();
    expect(remote.down).toBe(false);
    void remote.run(s.request('decide'), same);
    expect(s.sent.map((x) => x.kind)).toEqual(['ping', 'decide']);
  });

  it('probes at once when the client says it is connected again, and after a refused probe when due', async () => {
    const s = server();
    const remote = remoteOn(s);
    remote.lost();
    (s.sent[0] as { fail: (e: unknown) => void }).fail(new Error('connect ECONNREFUSED'));
    await new Promise((resolve) => setImmediate(resolve));
    remote.found();
    expect(s.sent.map((x) => x.kind)).toEqual(['ping', 'ping']);
  });

  it('without a probe, keeps the old way: a user call probes', async () => {
    const s = server();
    const remote = remoteOn(s, false);
    remote.lost();
    void remote.run(s.request('decide'), same);
    expect(s.sent.map((x) => x.kind)).toEqual(['decide']);
  });
});
