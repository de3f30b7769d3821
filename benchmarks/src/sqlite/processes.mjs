// Section sqlite/processes: decisions per second on one SqliteStore file shared by 1, 2, 4 and 8
// processes (default options, token bucket, quota of a billion), all on ONE hot key, and with 8
// processes each on a key of its own. Each process decides back to back for --sqlite-ms (default
// 1000) from a common start instant; the table gives the total decisions/s (median over
// --sqlite-rounds, default 3, with the range) and the decisions any store had to decide by its failure
// policy (must be 0). SQLite takes one writer at a time per file, so the total is bounded by one
// writer's rate: more processes add waiting, not throughput.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChild } from '../lib/child.mjs';
import { flags, intFlag } from '../lib/args.mjs';
import { median } from '../lib/stats.mjs';
import { fixed, formatTable, grouped } from '../lib/table.mjs';

async function once(processes, ms, keyMode) {
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-sqlite-'));
  try {
    const path = join(dir, 'shared.sqlite');
    const startAt = String(Date.now() + 1500);
    const reports = await Promise.all(Array.from({ length: processes }, () => runChild('sqlite-child.mjs', { args: [path, startAt, String(ms), keyMode], timeoutMs: 120_000 })));
    return { perSecond: (reports.reduce((s, r) => s + r.decisions, 0) * 1000) / ms, failed: reports.reduce((s, r) => s + r.failed, 0) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(args) {
  const f = flags(args);
  const rounds = intFlag(f, 'sqlite-rounds', 3);
  const ms = intFlag(f, 'sqlite-ms', 1000);
  const setups = [
    [1, 'hot'],
    [2, 'hot'],
    [4, 'hot'],
    [8, 'hot'],
    [8, 'own'],
  ];
  const rows = [];
  for (const [processes, keyMode] of setups) {
    const runs = [];
    for (let r = 0; r < rounds; r++) runs.push(await once(processes, ms, keyMode));
    const rates = runs.map((x) => x.perSecond);
    rows.push([
      `${processes} process${processes > 1 ? 'es' : ''}, ${keyMode === 'hot' ? 'one hot key' : 'a key each'}`,
      grouped(median(rates)),
      `${grouped(Math.min(...rates))}–${grouped(Math.max(...rates))}`,
      fixed((1e6 * processes) / median(rates), 1),
      String(runs.reduce((s, x) => s + x.failed, 0)),
    ]);
  }
  console.log(`sqlite/processes: one file, ${rounds} rounds of ${ms} ms per row (Node ${process.versions.node})`);
  console.log(formatTable(['processes and keys', 'decisions/s (all)', 'range', 'µs per decision per process', 'decided by the failure policy'], rows));
}
