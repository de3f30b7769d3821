/**
 * ServerClock: what this process can prove about a remote store's server clock, for the deadlines its
 * requests carry.
 *
 * Every decision request (a Redis script, a SQL function) starts by reading the server's time and
 * refuses to do anything (it answers 'expired', with the time it read) when it starts at or after the
 * deadline the call carries. The caller may decide a call locally only once the server's clock has
 * certainly passed that deadline: from then on the request can no longer change state, so a decision
 * taken locally is never also taken by the server.
 *
 * "Certainly" is a lower bound. An expired request answers the server time it read, s, and the reply
 * is received at r on this process's monotonic clock; the server read s at some instant before r, so
 * at any later instant t the server's clock reads at least s + (t - r), less the drift of the two
 * clocks since r, bounded by RATE_BOUND (1,000 ppm: ten times a typical crystal's error, twice NTP's
 * largest slew). Each sample is such a bound; the highest (the one read soonest before its receipt)
 * is kept. `deadline(sentAt, budgetMs)` is the largest whole millisecond the server's clock has
 * certainly reached at sentAt + budgetMs, so the caller may give up at sentAt + budgetMs.
 *
 * With no sample (a new store, or after the breaker opened: the server may have failed over to another
 * host with another clock) the deadline is 0: the first request expires at once and brings a sample.
 * The bound assumes the server's clock does not step backwards; a step back by Δ lets a request start
 * up to Δ after its caller gave up, until the next sample.
 */

/** RATE_BOUND bounds how much faster this process's monotonic clock may run than the server's. */
export const RATE_BOUND = 1e-3;

export class ServerClock {
  /** offset is server time minus local time at the sample, a lower bound; -Infinity without one. */
  #offset = Number.NEGATIVE_INFINITY;
  #sampledAt = 0;

  /** sample records that the server's clock read `serverMs` some time before local instant `receivedAt`. */
  sample(serverMs: number, receivedAt: number): void {
    // Keep whichever bound is higher now: both decay at the same rate, so it stays the higher one.
    const kept = this.#offset - RATE_BOUND * (receivedAt - this.#sampledAt);
    const offset = serverMs - receivedAt;
    if (offset < kept) return;
    this.#offset = offset;
    this.#sampledAt = receivedAt;
  }

  /** forget drops the sample: the next script will expire at once and bring a new one. */
  forget(): void {
    this.#offset = Number.NEGATIVE_INFINITY;
  }

  /**
   * deadline is the server instant (whole ms) that the server's clock has certainly reached at local
   * instant sentAt + budgetMs; 0 without a sample.
   */
  deadline(sentAt: number, budgetMs: number): number {
    if (this.#offset === Number.NEGATIVE_INFINITY) return 0;
    const giveUpAt = sentAt + budgetMs;
    const bound = Math.floor(giveUpAt + this.#offset - RATE_BOUND * (giveUpAt - this.#sampledAt));
    return bound > 0 ? bound : 0;
  }
}
