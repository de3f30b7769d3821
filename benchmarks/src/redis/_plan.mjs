// The arithmetic of redis/sizing, pure: from measured costs per decision (Redis CPU µs, client CPU µs,
// round trips) to a plan for `target` decisions/s with every core planned at `headroom` (0 < h ≤ 1).
//
// A shard runs Lua on one thread, so it carries at most 1e6 / redisCpuUs decisions/s at 100 %; the
// target needs ⌈target × redisCpuUs / (1e6 × headroom)⌉ shards. One key lives in one hash slot, so on
// one shard: no number of shards lets a single key go past 1e6 × headroom / redisCpuUs decisions/s
// (the key's ceiling). The limiter's own client CPU needs target × clientCpuUs / (1e6 × headroom)
// cores of app servers. A mix of traffic costs the share-weighted mean of its parts.

/** plan answers { perShard, keyCeiling, shards, cores } for `cost` ({ redisCpuUs, clientCpuUs }). */
export function plan(cost, target, headroom) {
  return {
    perShard: 1e6 / cost.redisCpuUs,
    keyCeiling: (1e6 * headroom) / cost.redisCpuUs,
    shards: Math.ceil((target * cost.redisCpuUs) / (1e6 * headroom)),
    cores: (target * cost.clientCpuUs) / (1e6 * headroom),
  };
}

/** mix is the cost of traffic with `share` (0 to 1) of its decisions costing `hot` and the rest `cold`. */
export function mix(hot, share, cold) {
  const w = (name) => share * hot[name] + (1 - share) * cold[name];
  return { redisCpuUs: w('redisCpuUs'), clientCpuUs: w('clientCpuUs'), roundTrips: w('roundTrips') };
}
