// Section "micro": the cost of one decision on the memory store, for each ratekeeper limiter (`allow`
// and `consume`) beside the naive reference bucket and the peers' in-memory stores, on one hot key and
// round-robin over 100,000 keys. Each row is measured in its own process, in pairs of short chunks
// with the naive bucket on the same keys (lib/micro-child.mjs has the method and the reasons).
// Reported per row and key set: the median ns per decision over its chunks, and its ratio to the naive
// bucket (medians over the pairs, see pairRatio). The naive row's ns/op is the median of all its chunks.
//
// Flags (prefixed, since run-all passes every flag to every section): --micro-rounds=N (21),
// --micro-chunks=N (16), --micro-chunk-us=N (250), --micro-keys=N (100000), --micro-only=id,id
// (operation ids, see lib/contenders.mjs).
import { flags } from './lib/args.mjs';
import { runChild } from './lib/child.mjs';
import { contenders, operations } from './lib/contenders.mjs';
import { BATCH } from './lib/loops.mjs';
import { median, medianInterval } from './lib/stats.mjs';
import { fixed, formatTable, grouped } from './lib/table.mjs';

const SETS = ['hot', 'spread'];

export async function run(args) {
  const f = flags(args);
  const passOn = ['rounds', 'chunks', 'chunk-us', 'keys'].filter((k) => f[`micro-${k}`] !== undefined).map((k) => `--${k}=${f[`micro-${k}`]}`);
  const only = f['micro-only']?.split(',');
  const rows = operations.filter((o) => o.id !== 'naive.allow' && (only === undefined || only.includes(o.id)));
  const results = [];
  for (const row of rows) {
    process.stderr.write(`micro: ${row.id}\n`);
    results.push(await runChild('micro-child.mjs', { nodeFlags: ['--expose-gc'], args: [`--row=${row.id}`, ...passOn] }));
  }
  console.log(render(results, f));
}

/**
 * pairRatio is the row's ratio to the naive bucket over one key set's pairs: the geometric mean of the
 * median ratio of the naive-first pairs and of the row-first pairs (cancelling the cache advantage of
 * going second), with the same combination of their ~95 % intervals.
 */
function pairRatio(pairs) {
  const byOrder = [true, false].map((naiveFirst) => pairs.filter((p) => p[2] === naiveFirst).map(([row, naive]) => row / naive));
  const geo = (a, b) => Math.sqrt(a * b);
  const [first, second] = byOrder;
  const [lo1, hi1] = medianInterval(first);
  const [lo2, hi2] = medianInterval(second);
  return { ratio: geo(median(first), median(second)), low: geo(lo1, lo2), high: geo(hi1, hi2) };
}

function render(results, f) {
  let widest = 0;
  const naive = SETS.map((set) => median(results.flatMap((r) => r[set].pairs.map((p) => p[1]))));
  const rows = [[contenders.naive.label, 'allow', fixed(naive[0], 1), '1.00×', '', fixed(naive[1], 1), '1.00×', '']];
  for (const result of results) {
    const op = operations.find((o) => o.id === result.id);
    const cells = SETS.flatMap((set) => {
      const { ratio, low, high } = pairRatio(result[set].pairs);
      const spread = (high - low) / 2 / ratio;
      widest = Math.max(widest, spread);
      return [fixed(median(result[set].pairs.map((p) => p[0])), 1), `${fixed(ratio, 2)}×`, `±${fixed(spread * 100, 0)} %`];
    });
    rows.push([contenders[op.contender].label, op.op, ...cells]);
  }
  const keys = grouped(Number(f['micro-keys'] ?? 100_000));
  const pairs = results[0]?.hot.pairs.length ?? 0;
  return [
    `micro — one decision on the memory store; each row in its own process beside the naive bucket; ${pairs} timed pairs per cell; medians`,
    '',
    formatTable(['contender', 'operation', 'hot key ns/op', 'vs naive', '95 % CI', `${keys} keys ns/op`, 'vs naive', '95 % CI'], rows),
    '',
    "vs naive: ns/op ÷ the naive bucket's ns/op on the same keys, a fraction of a millisecond apart (median over pairs, both orders); below 1.00× is faster.",
    `95 % CI: half-width of the ratio's ~95 % confidence interval (distribution-free, from the pairs' order statistics); widest ±${fixed(widest * 100, 1)} %.`,
    `Async rows (express-rate-limit, rate-limiter-flexible) are read with one .then per promise and one await per ${BATCH} calls.`,
  ].join('\n');
}
