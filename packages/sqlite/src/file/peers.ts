/**
 * Peers: how many processes share the file, as last seen, so that while the file cannot decide each
 * process's fallback enforces its share of a limit (core's store kit, Fallback) and the host admits
 * about one limit in all, not one per process.
 *
 * Each process records itself in rk_peers under core's peerId() (every store of one process counts
 * once) with the host's wall clock, which all its processes share: inside a decision's own write
 * transaction when a beat is due (every BEAT_MS), and from an unref'd timer every BEAT_MS, so a quiet
 * process is counted too (the attack that meets an outage may be the first traffic it serves). The
 * same beat forgets the members not seen for MEMBER_TTL_MS and counts the rest (a table of a few rows:
 * one per live process). Until a beat has succeeded the count is 1. A beat that fails is not reported
 * (the decisions around it are).
 */
import { BEAT_MS, MEMBER_TTL_MS, peerId } from '@ratekeeper/core/store';
import type { Sql } from '../sql/sql.js';

export class Peers {
  #count = 1;
  #dueAt = 0;

  /** count is the number of processes last seen on the file, this one included (≥ 1). */
  get count(): number {
    return this.#count;
  }

  /** due tells whether a beat should ride on the current write transaction. */
  get due(): boolean {
    return performance.now() >= this.#dueAt;
  }

  /** beat records this process, forgets the silent ones and counts the members (inside a write transaction). */
  beat(sql: Sql): void {
    const now = Date.now();
    sql.beat.run(peerId(), now);
    sql.forgetPeers.run(now - MEMBER_TTL_MS);
    this.#count = Math.max(1, sql.peers.get()?.['n'] as number);
    this.#dueAt = performance.now() + BEAT_MS;
  }
}
