/**
 * networkFaults: the run behind a store's network-fault test. Each application (a client, a store, a
 * fixed-window limiter too large to fill) reaches the store through its own faultProxy and decides on
 * one key every 10 ms: healthy for 30 ticks, under the fault for `faultTicks`, then healed until the
 * store decides again, then until every decision has settled. `measure` reads a run: how many
 * decisions during the fault the store took and the fallback took, the slowest, how soon after the
 * heal the store decided again, what the store admitted, how many calls were in flight when the fault
 * began (the most a store may count beyond what it admitted: a call it ran just before the fault, its
 * reply held or lost, is also decided by the fallback), and the store's own count, peeked through a
 * store made on the server itself. `close()` prints the rows added under RATEKEEPER_REPORT=1.
 */
import { FixedWindowLimiter, type Store } from '@ratekeeper/core';
import { expect, it } from 'vitest';
import { type FaultProxy, faultProxy } from './fault-proxy.js';

/** One decision: when it was asked, when it settled (Infinity: not yet), and what it was. */
export interface FaultSample {
  readonly start: number;
  end: number;
  failure?: string | undefined;
  allowed?: boolean;
}

export interface FaultRun {
  readonly samples: readonly FaultSample[];
  readonly faultAt: number;
  readonly healedAt: number;
}

export interface Measured {
  /** Decisions asked during the fault (or after) that the fallback took. */
  readonly fallback: number;
  /** Decisions asked during the fault (or after) that the store took. */
  readonly byStore: number;
  readonly slowestMs: number;
  /** From the heal to the end of the first decision the store took again. */
  readonly backMs: number;
  /** Every request the store admitted, over the whole run. */
  readonly admittedByStore: number;
  readonly inFlightAtFault: number;
  /** What the store counted on the key, peeked after the run. */
  readonly counted: number;
}

export interface NetworkFaultOptions {
  /** The store's server, which each application's proxy forwards to. */
  readonly host: string;
  /** The server's port, or a function answering it (a server a beforeAll starts). */
  readonly port: number | (() => number);
  /** storeOn makes one application's store, its client made as the README makes it, on `port` (a 'failure' listener is the caller's). */
  storeOn(port: number): Store;
  /** How the store is named in the reported table's columns ("Redis", "the database"). */
  readonly label: string;
  /** Ticks of 10 ms under the fault (default 120). */
  readonly faultTicks?: number;
}

export interface ScenarioOptions {
  /** Applications, each through its own proxy; the fault is injected into the first's (default 1). */
  readonly apps?: number;
  /** A store maker for this scenario only (a mutant's build or client). */
  storeOn?(port: number): Store | Promise<Store>;
}

const HUGE = 1e12;
const KEY = 'k';
const TICK_MS = 10;

export function networkFaults(options: NetworkFaultOptions) {
  const proxies: FaultProxy[] = [];
  const serverPort = () => (typeof options.port === 'number' ? options.port : options.port());
  const rows: string[] = [];
  const limiterOn = (store: Store, name: string) => new FixedWindowLimiter({ limit: HUGE, windowMs: HUGE, store, name });
  /** counted is what the store counted on application `name`'s key, peeked through a store made on the server itself. */
  const counted = async (name: string) => HUGE - (await limiterOn(options.storeOn(serverPort()), name).peek(KEY)).remaining - 1;

  async function app(name: string, storeOn: (port: number) => Store | Promise<Store>) {
    const proxy = await faultProxy(options.host, serverPort());
    proxies.push(proxy);
    const store = await storeOn(proxy.port);
    const limiter = limiterOn(store, name);
    const samples: FaultSample[] = [];
    const fire = () => {
      const sample: FaultSample = { start: performance.now(), end: Number.POSITIVE_INFINITY };
      samples.push(sample);
      void Promise.resolve(limiter.consume(KEY)).then((d) => {
        sample.end = performance.now();
        sample.failure = d.failure;
        sample.allowed = d.allowed;
      });
    };
    return { proxy, samples, fire };
  }

  return {
    /**
     * run runs one fault on fresh applications named `${name}-${i}` (the fault on the first's proxy)
     * and answers what each one measured, with the store's own count on its key.
     */
    async run(name: string, inject: (proxy: FaultProxy) => void, scenario: ScenarioOptions = {}): Promise<[Measured, ...Measured[]]> {
      const storeOn = scenario.storeOn ?? options.storeOn;
      const made = await Promise.all(Array.from({ length: scenario.apps ?? 1 }, (_, i) => app(`${name}-${i}`, storeOn)));
      await ticks(made, 30);
      const faultAt = performance.now();
      inject((made[0] as { proxy: FaultProxy }).proxy);
      await ticks(made, options.faultTicks ?? 120);
      for (const a of made) a.proxy.heal();
      const healedAt = performance.now();
      await ticks(made, 500, () => made.every((a) => byStoreAfter(a.samples, healedAt)));
      await ticks(made, 10);
      await ticks([], 1500, () => made.every((a) => a.samples.every((s) => s.end < Number.POSITIVE_INFINITY)));
      const measured: Measured[] = [];
      for (const [i, a] of made.entries()) measured.push(measure({ samples: a.samples, faultAt, healedAt }, await counted(`${name}-${i}`)));
      return measured as [Measured, ...Measured[]];
    },

    /** row adds a line to the reported table. */
    row(fault: string, m: Measured): void {
      rows.push(`| ${fault} | ${m.byStore} | ${m.fallback} | ${m.slowestMs.toFixed(0)} | ${m.backMs.toFixed(0)} | ${m.counted - m.admittedByStore} |`);
    },

    /** close destroys every proxy's connections (first: a pool ends only once its silent connections are gone) and prints the table. */
    async close(): Promise<void> {
      for (const proxy of proxies.splice(0)) await proxy.close();
      if (process.env['RATEKEEPER_REPORT'] && rows.length > 0) {
        const l = options.label;
        console.log(
          `[report]\n| fault | by ${l} | by fallback | slowest ms | back after heal ms | counted by ${l} − admitted by ${l} |\n|---|---|---|---|---|---|\n${rows.join('\n')}`,
        );
      }
    },
  };
}

/** measure reads one application's run; `counted` is the store's own count on its key. */
export function measure(run: FaultRun, counted: number): Measured {
  const { samples, faultAt, healedAt } = run;
  const during = samples.filter((s) => s.start >= faultAt);
  const back = samples.find((s) => s.start >= healedAt && s.failure === undefined);
  return {
    fallback: during.filter((s) => s.failure === 'fallback').length,
    byStore: during.filter((s) => s.failure === undefined).length,
    slowestMs: Math.max(...during.map((s) => s.end - s.start)),
    backMs: back === undefined ? Number.POSITIVE_INFINITY : back.end - healedAt,
    admittedByStore: samples.filter((s) => s.failure === undefined && s.allowed === true).length,
    inFlightAtFault: samples.filter((s) => s.start < faultAt && s.end > faultAt).length,
    counted,
  };
}

const byStoreAfter = (samples: readonly FaultSample[], at: number) => samples.some((s) => s.start >= at && s.end < Number.POSITIVE_INFINITY && s.failure === undefined);

/** ticks fires every app every 10 ms, `n` times or until `until` holds. */
function ticks(apps: { fire(): void }[], n: number, until: () => boolean = () => false): Promise<void> {
  return new Promise((resolve) => {
    let left = n;
    const timer = setInterval(() => {
      if (left-- <= 0 || until()) {
        clearInterval(timer);
        resolve();
      } else for (const a of apps) a.fire();
    }, TICK_MS);
  });
}

export interface NetworkFaultCheckOptions {
  /** Added to each check's title: the client's name. */
  readonly kind: string;
  /** The latency case: ms and jitter (a slow but answering store, decided by it throughout). */
  readonly latency: readonly [number, number];
  /** Also a bandwidth case, in bytes a second. */
  readonly bytesPerSecond?: number;
  /** The store's timeoutMs (default 1,000); the slowest decision may take it and `slackMs` (default 1,000) more. */
  readonly timeoutMs?: number;
  readonly slackMs?: number;
  /** Requests a client sends again after a reply was cut (ioredis: 1), counted once more each. */
  readonly resentOnReset?: number;
  /**
   * A build (or client) of the store whose calls ignore their deadline: after a blackhole it must
   * count what the fallback decided, beyond the calls in flight when the fault began.
   */
  readonly deadlineMutant?: { readonly what: string; storeOn(port: number): Store | Promise<Store> };
}

/**
 * networkFaultChecks registers, inside the caller's describe, one check per fault on `faults`: a slow
 * but answering store (latency, and bandwidth when asked) decides every request and counts exactly
 * what it admitted; under a blackhole, half-open connections or a reply reset midway, each decision
 * takes at most timeoutMs + slack, the store decides again within 1 s of the heal, and its count never
 * falls below what it admitted nor exceeds it by more than the calls in flight when the fault began
 * (and the requests a client sends again); a blackhole is decided by the fallback. With
 * `deadlineMutant`, the build whose calls outlive their deadline is caught by that count.
 */
export function networkFaultChecks(faults: ReturnType<typeof networkFaults>, options: NetworkFaultCheckOptions): void {
  const [ms, jitter] = options.latency;
  const slow: [string, (p: FaultProxy) => void][] = [[`latency ${ms} ms ± ${jitter} ms`, (p) => p.latency(ms, jitter)]];
  const bps = options.bytesPerSecond;
  if (bps !== undefined) slow.push([`bandwidth ${bps / 1024} KB/s`, (p) => p.bandwidth(bps)]);
  const bound = (options.timeoutMs ?? 1000) + (options.slackMs ?? 1000);
  const title = (fault: string) => `${fault} (${options.kind})`;
  const nameOf = (fault: string) => `${fault.replace(/\W+/g, '-')}-${options.kind}`;

  for (const [fault, inject] of slow) {
    it(`${fault}: a slow but answering store decides every request (${options.kind})`, async () => {
      const [m] = await faults.run(nameOf(fault.split(' ')[0] as string), inject);
      faults.row(title(fault), m);
      expect(m.fallback).toBe(0);
      expect(m.byStore).toBeGreaterThan(0);
      expect(m.counted).toBe(m.admittedByStore);
    });
  }

  for (const [fault, inject] of [
    ['blackhole', (p: FaultProxy) => p.blackhole()],
    ['half-open', (p: FaultProxy) => p.halfOpen()],
    ['reset mid-reply', (p: FaultProxy) => p.resetMidReply()],
  ] as const) {
    it(`${fault}: decided within timeoutMs, by the store again within 1 s of the heal, never admitted twice (${options.kind})`, async () => {
      const [m] = await faults.run(nameOf(fault), inject);
      faults.row(title(fault), m);
      expect(m.slowestMs).toBeLessThanOrEqual(bound);
      expect(m.backMs).toBeLessThan(1000);
      // A call the store ran just before the fault, its reply held or lost, is also decided by the fallback: it can only deny more.
      expect(m.counted).toBeGreaterThanOrEqual(m.admittedByStore);
      expect(m.counted - m.admittedByStore).toBeLessThanOrEqual(m.inFlightAtFault + (fault === 'reset mid-reply' ? (options.resentOnReset ?? 0) : 0));
      if (fault === 'blackhole') expect(m.fallback).toBeGreaterThan(0);
    });
  }

  const mutant = options.deadlineMutant;
  if (mutant !== undefined) {
    it(`catches ${mutant.what}: after a blackhole, the store counts what the fallback decided (${options.kind})`, async () => {
      const [m] = await faults.run(nameOf('deadline-mutant'), (p) => p.blackhole(), { storeOn: mutant.storeOn });
      expect(m.fallback).toBeGreaterThan(0);
      expect(m.counted - m.admittedByStore).toBeGreaterThan(m.inFlightAtFault + (options.resentOnReset ?? 0));
    });
  }
}
