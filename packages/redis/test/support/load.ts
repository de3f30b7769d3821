/**
 * Steady load for the fault tests: every 10 ms each target limiter gets `perTick` requests on keys
 * drawn from a small set, and every request is timed from the moment it is issued to the moment its
 * promise settles. Targets are the store under test (one per failure policy and client) and mutants.
 * stop() ends the load and waits (bounded) for what is still in flight; what never settles counts as
 * an infinite latency.
 *
 * The test process's own event loop can stall (a fork, a GC pause, a neighbour hogging the 2 cores):
 * every callback waits then, a healthy Redis's reply as much as the store's timer. A LagMeter records
 * those stalls, and `storeLatency` deducts the stalls that overlap a request, so the bound measures
 * the store rather than the machine. Both figures are kept; the raw one is reported too.
 */
import type { Decision } from '@ratekeeper/core';

export interface Target {
  readonly name: string;
  readonly consume: (key: string) => Promise<Decision>;
}

export interface Sample {
  readonly start: number;
  end: number;
  decision?: Decision;
  rejected?: unknown;
}

/**
 * LagMeter records the event loop's lateness: every gap between ticks of a 5 ms interval beyond the
 * period. Small delays count too: on a loaded machine a loop late by 3–4 ms on every tick (never a
 * gap of two periods) held a 100 ms bound's replies back by as much as one long stall would.
 */
export class LagMeter {
  static readonly PERIOD_MS = 5;
  readonly #stalls: [from: number, to: number, extra: number][] = [];
  #timer: ReturnType<typeof setInterval> | undefined;

  start(): void {
    let last = performance.now();
    this.#timer = setInterval(() => {
      const now = performance.now();
      if (now - last > LagMeter.PERIOD_MS) this.#stalls.push([last, now, now - last - LagMeter.PERIOD_MS]);
      last = now;
    }, LagMeter.PERIOD_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** stalledWithin is how long the loop stood still during [start, end]. */
  stalledWithin(start: number, end: number): number {
    let stalled = 0;
    for (const [from, to, extra] of this.#stalls) {
      const overlap = Math.min(to, end) - Math.max(from, start);
      if (overlap > 0) stalled += Math.min(overlap, extra);
    }
    return stalled;
  }

  get worst(): number {
    return this.#stalls.reduce((max, [, , extra]) => Math.max(max, extra), 0);
  }
}

export class Load {
  readonly lag = new LagMeter();
  readonly #targets: readonly Target[];
  readonly #perTick: number;
  readonly #keys: number;
  readonly #samples = new Map<string, Sample[]>();
  readonly #pending = new Set<Promise<unknown>>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(targets: readonly Target[], perTick = 2, keys = 50) {
    this.#targets = targets;
    this.#perTick = perTick;
    this.#keys = keys;
    for (const t of targets) this.#samples.set(t.name, []);
  }

  start(): void {
    this.lag.start();
    this.#timer = setInterval(() => this.#tick(), 10);
  }

  async stop(maxWaitMs = 5000): Promise<void> {
    clearInterval(this.#timer);
    const deadline = new Promise((resolve) => setTimeout(resolve, maxWaitMs).unref());
    await Promise.race([Promise.all(this.#pending), deadline]);
    this.lag.stop();
  }

  /** storeLatency is a sample's latency less the event-loop stalls during it. */
  storeLatency(s: Sample): number {
    return latency(s) - this.lag.stalledWithin(s.start, s.end);
  }

  /** slowestStore is the largest storeLatency among the samples of `name`. */
  slowestStore(name: string): number {
    return this.samples(name).reduce((max, s) => Math.max(max, this.storeLatency(s)), 0);
  }

  samples(name: string): readonly Sample[] {
    return this.#samples.get(name) ?? [];
  }

  #tick(): void {
    for (const target of this.#targets) {
      for (let i = 0; i < this.#perTick; i++) {
        const sample: Sample = { start: performance.now(), end: Infinity };
        (this.#samples.get(target.name) as Sample[]).push(sample);
        const key = `load-${Math.floor(Math.random() * this.#keys)}`;
        const settled = target.consume(key).then(
          (decision) => {
            sample.decision = decision;
          },
          (error: unknown) => {
            sample.rejected = error;
          },
        );
        const done = settled.finally(() => {
          sample.end = performance.now();
          this.#pending.delete(done);
        });
        this.#pending.add(done);
      }
    }
  }
}

/** latency is a sample's time to settle in ms. */
export function latency(s: Sample): number {
  return s.end - s.start;
}
