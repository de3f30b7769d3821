/**
 * Peers: how many processes share a remote store's state (a prefix on one Redis, a table on one
 * database), as last seen, so that during an outage each process's fallback enforces its share of a
 * limit (./fallback.ts) and the fleet admits about one limit in all, not one per process.
 *
 * Each process that has decided on the store beats: one request (the store's `beat`) that records the
 * process under its peerId() with the server's time, forgets the members not seen for MEMBER_TTL_MS, and
 * answers how many remain. The first beat follows the store's first call (on the next turn), then beats
 * come at growing intervals (250 ms, 500 ms, 1 s, 2 s, 4 s) and every BEAT_MS after that, busy or idle:
 * a quiet process is counted, since the attack that meets an outage may be the first traffic it
 * serves. So a fleet started together agrees on its size within a second, a process that joins is
 * counted by the others within BEAT_MS, and one that dies stays counted (a smaller share, never a
 * larger one) for MEMBER_TTL_MS.
 *
 * Every store of one process counts once (the member is this process's id), so two stores on one
 * server do not halve each other's share. Until a beat has been answered the count is 1: a process
 * that has never seen the server knows of no peer. Beats are not decisions: a failed one is not
 * reported (the calls around it are), none is sent while the breaker is open, and the timer is unref'd.
 */
import type { Remote, Request } from './remote.js';

/** BEAT_MS is the steady interval between beats; a member unseen for MEMBER_TTL_MS is forgotten. */
export const BEAT_MS = 5_000;
export const MEMBER_TTL_MS = 3 * BEAT_MS;
const FIRST_BEATS_MS = [0, 250, 500, 1_000, 2_000, 4_000];

/** Where the id is kept: one slot per process, shared by every copy of core loaded in it (two installs, a bundle and a package). */
const SLOT = Symbol.for('@ratekeeper/core/peer-id');

/**
 * peerId names this process among a store's peers (every store of one process counts once, whichever
 * copy of core made it). Made at its first use, not when the module loads: Workers refuse random values
 * at global scope.
 */
export function peerId(): string {
  const slots = globalThis as unknown as Record<symbol, string | undefined>;
  slots[SLOT] ??= Array.from(globalThis.crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
  return slots[SLOT];
}

export class Peers {
  readonly #remote: Remote;
  readonly #beat: () => Request;
  #count = 1;
  #beats = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `beat` makes the request that records peerId() for MEMBER_TTL_MS and answers the number of members. */
  constructor(remote: Remote, beat: () => Request) {
    this.#remote = remote;
    this.#beat = beat;
  }

  /** count is the number of processes last seen on the store, this one included (≥ 1). */
  get count(): number {
    return this.#count;
  }

  /** start schedules the first beat; the store calls it at its first call. */
  start(): void {
    if (this.#timer === undefined) this.#schedule();
  }

  #schedule(): void {
    const delay = FIRST_BEATS_MS[this.#beats] ?? BEAT_MS;
    this.#timer = setTimeout(this.#tick, delay);
    (this.#timer as { unref?: () => unknown }).unref?.();
  }

  readonly #tick = (): void => {
    this.#beats++;
    if (this.#remote.down) return this.#schedule();
    const beaten = this.#remote.run(this.#beat(), (ended) => {
      if (typeof ended === 'number' && Number.isSafeInteger(ended) && ended >= 1) this.#count = ended;
    });
    void beaten.then(() => this.#schedule());
  };
}
