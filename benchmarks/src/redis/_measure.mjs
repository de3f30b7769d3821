// How the Redis sections measure a contender: sequential latency (one call at a time, the time each
// takes), throughput with a fixed number of calls in flight on one connection for a fixed time, and
// Redis's own CPU per decision from INFO CPU deltas over the throughput phase. Rounds interleave the
// contenders (A B C, B C A, …) so that a burst of noise on the shared machine spreads over all of them;
// the figures reported are medians over rounds.
import { median, quantile } from '../lib/stats.mjs';

const KEYS = 10_000;
const key = (i) => `k${i % KEYS}`;

function check(admitted, label) {
  if (admitted !== true) throw new Error(`${label}: a call was not admitted; the benchmark would measure the wrong path`);
}

/** sequential times `n` calls one after the other; answers per-call microseconds. */
export async function sequential(decide, n, label) {
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    check(await decide(key(i)), label);
    times[i] = (performance.now() - start) * 1000;
  }
  return times;
}

/** throughput runs `inFlight` callers for `ms`; answers { perSecond, decisions, clientCpuUs }. */
export async function throughput(decide, inFlight, ms, label) {
  let decisions = 0;
  let next = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  const cpu = process.cpuUsage();
  async function caller() {
    while (performance.now() < end) {
      check(await decide(key(next++)), label);
      decisions++;
    }
  }
  await Promise.all(Array.from({ length: inFlight }, caller));
  const used = process.cpuUsage(cpu);
  return { perSecond: decisions / ((performance.now() - start) / 1000), decisions, clientCpuUs: used.user + used.system };
}

/** redisCpuUs reads the server's user + system CPU time in microseconds. */
export async function redisCpuUs(client) {
  const info = await client.info('cpu');
  const read = (name) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1e6;
}

/**
 * measureAll runs `rounds` interleaved rounds over `contenders` ([label, decide, roundTrips?]) and
 * answers, per label, { seqMedianUs, seqP99Us, perSecond: number[], cpuUsPerDecision,
 * clientCpuUsPerDecision, roundTripsPerDecision } (CPU time, not wall time: the process's own from
 * process.cpuUsage, Redis's from INFO CPU). `roundTrips()`, when given, reads a count of the calls the
 * contender sent to Redis so far; its growth over the throughput phase per decision is
 * roundTripsPerDecision (NaN without it).
 */
export async function measureAll(client, contenders, { rounds, ms, inFlight, sequentialCalls }) {
  const results = new Map(contenders.map(([label]) => [label, { seq: [], perSecond: [], cpu: [], clientCpu: [], trips: [] }]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const [label, decide, roundTrips] = contenders[(i + round) % contenders.length];
      const r = results.get(label);
      r.seq.push(...(await sequential(decide, sequentialCalls, label)));
      const cpuBefore = await redisCpuUs(client);
      const tripsBefore = roundTrips?.() ?? Number.NaN;
      const { perSecond, decisions, clientCpuUs } = await throughput(decide, inFlight, ms, label);
      r.cpu.push(((await redisCpuUs(client)) - cpuBefore) / decisions);
      r.trips.push(((roundTrips?.() ?? Number.NaN) - tripsBefore) / decisions);
      r.clientCpu.push(clientCpuUs / decisions);
      r.perSecond.push(perSecond);
    }
  }
  return new Map(
    [...results].map(([label, r]) => [
      label,
      {
        seqMedianUs: median(r.seq),
        seqP99Us: quantile(r.seq, 0.99),
        perSecond: r.perSecond,
        cpuUsPerDecision: median(r.cpu),
        clientCpuUsPerDecision: median(r.clientCpu),
        roundTripsPerDecision: median(r.trips),
      },
    ]),
  );
}
