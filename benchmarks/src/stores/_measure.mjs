// The scenarios of the stores section and the interleaved rounds that run them (./index.mjs).
//
// A contender is { id, label, consume(key), peek(key) }: `consume` and `peek` answer a verdict code
// (ADMITTED, DENIED or FAILED: decided by the store's failure policy, not by the database), or a
// promise of one. Every scenario awaits each call, so a synchronous contender (better-sqlite3)
// pays the same one microtask per call as an asynchronous one pays for its promise.
import { quantile } from '../lib/stats.mjs';

export const ADMITTED = 0;
export const DENIED = 1;
export const FAILED = 2;

/**
 * The scenarios, in the order of the tables. `lone` and `probe` are one call at a time (per-call
 * latency, p50 and p99) over the lone keys; the others keep `lanes` calls in flight for a slice over
 * the many keys (decisions/s), or over one key (`hot`).
 */
export const SCENARIOS = [
  { id: 'lone', title: 'lone call', kind: 'latency', call: 'consume', keys: 'lone' },
  { id: 'probe', title: 'the probe (peek)', kind: 'latency', call: 'peek', keys: 'lone' },
  { id: 'in-flight-1', title: '1 in flight', kind: 'rate', call: 'consume', keys: 'many', lanes: 1 },
  { id: 'in-flight-10', title: '10 in flight', kind: 'rate', call: 'consume', keys: 'many', lanes: 10 },
  { id: 'in-flight-50', title: '50 in flight', kind: 'rate', call: 'consume', keys: 'many', lanes: 50 },
  { id: 'in-flight-200', title: '200 in flight', kind: 'rate', call: 'consume', keys: 'many', lanes: 200 },
  { id: 'hot-50', title: 'hot key, 50 in flight', kind: 'rate', call: 'consume', keys: 'hot', lanes: 50 },
];

const MAX_LATENCY_SAMPLES = 200_000;

/**
 * sequential times one call at a time for `ms`, and on until it has `min` calls (a p99 needs a few
 * hundred) but never past 4 × `ms`, nor past `max` calls: { p50, p99, n, counts }, in µs.
 */
export async function sequential(call, keys, ms, stop, { min = 0, max = MAX_LATENCY_SAMPLES } = {}) {
  const latencies = new Float64Array(max);
  const counts = [0, 0, 0];
  let n = 0;
  const start = performance.now();
  let now = start;
  while ((now - start < ms || (n < min && now - start < 4 * ms)) && n < max && !stop.requested) {
    const before = performance.now();
    const code = await call(keys[n % keys.length]);
    now = performance.now();
    latencies[n++] = (now - before) * 1000;
    counts[code]++;
  }
  const taken = Array.from(latencies.subarray(0, n));
  return { p50: quantile(taken, 0.5), p99: quantile(taken, 0.99), n, counts };
}

/**
 * inFlight keeps `lanes` calls in flight for `ms`, each lane asking the next key of `cursor` as its
 * call resolves (as `lanes` request handlers would), and answers { rate, n, counts }: decisions per
 * second over the whole slice, the calls still in flight at its end included.
 */
export async function inFlight(call, keys, lanes, ms, cursor, stop) {
  const counts = [0, 0, 0];
  let n = 0;
  const start = performance.now();
  const lane = async () => {
    while (performance.now() - start < ms && !stop.requested) {
      counts[await call(keys[cursor.next++ % keys.length])]++;
      n++;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return { rate: (n * 1000) / (performance.now() - start), n, counts };
}

/** touchAll decides once on every key, 200 in flight: each contender's table then holds every key. */
async function touchAll(call, keys, stop) {
  let next = 0;
  const lane = async () => {
    while (next < keys.length && !stop.requested) await call(keys[next++]);
  };
  await Promise.all(Array.from({ length: 200 }, lane));
}

/**
 * rounds warms every contender up, then runs `rounds` rounds; in each, every scenario in turn runs on
 * every contender back to back, in an order rotated from scenario to scenario and round to round, so
 * that contenders compared in a ratio are measured a few seconds apart and none is always first.
 * Answers samples[contenderId][scenarioId] = one result per round, and the verdict counts per contender.
 */
export async function runRounds(contenders, keySets, o, stop, log) {
  const samples = Object.fromEntries(contenders.map((c) => [c.id, Object.fromEntries(SCENARIOS.map((s) => [s.id, []]))]));
  const counts = Object.fromEntries(contenders.map((c) => [c.id, [0, 0, 0]]));
  const cursors = Object.fromEntries(contenders.map((c) => [c.id, { next: 0 }]));
  for (const c of contenders) {
    const began = performance.now();
    await touchAll(c.consume, keySets.many, stop);
    await sequential(c.consume, keySets.lone, Math.min(200, o.loneMs), stop, { max: 500 });
    await sequential(c.peek, keySets.lone, Math.min(100, o.probeMs), stop, { max: 200 });
    await inFlight(c.consume, keySets.hot, 50, Math.min(200, o.sliceMs), { next: 0 }, stop);
    log(`  warmed up ${c.label} (${keySets.many.length} keys) in ${Math.round(performance.now() - began)} ms`);
  }
  for (let round = 0; round < o.rounds && !stop.requested; round++) {
    const began = performance.now();
    for (const [si, s] of SCENARIOS.entries()) {
      const shift = (round * SCENARIOS.length + si) % contenders.length;
      const order = [...contenders.slice(shift), ...contenders.slice(0, shift)];
      for (const c of order) {
        if (stop.requested) break;
        const call = c[s.call];
        const keys = keySets[s.keys];
        const r =
          s.kind === 'latency'
            ? await sequential(call, keys, s.id === 'probe' ? o.probeMs : o.loneMs, stop, { min: o.minSamples })
            : await inFlight(call, keys, s.lanes, o.sliceMs, cursors[c.id], stop);
        samples[c.id][s.id].push(r);
        for (let i = 0; i < 3; i++) counts[c.id][i] += r.counts[i];
      }
    }
    log(`  round ${round + 1} of ${o.rounds} in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  }
  return { samples, counts };
}
