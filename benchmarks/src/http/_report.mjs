/**
 * Summaries and the printed table of the HTTP benchmark.
 *
 * Per framework, path and library: the median req/s of its slices; the median of the per-round
 * throughput ratios to bare and of the per-round CPU µs differences to bare, each with its
 * distribution-free ~95 % confidence interval (../lib/stats.mjs: with 6 to 8 rounds that is the
 * 2nd-lowest to 2nd-highest round or wider); the median CPU µs per request; the server's median busy share
 * (CPU time ÷ wall time) and the client's (near 100 %: that side was the bottleneck); and the
 * responses seen, which must be all 200 on bare and on the allow path, all 429 on the deny path. The
 * control row (bare against bare) shows how far from 1.00 and +0.0 noise alone moves a row.
 *
 * The `floor` row is the fair floor (_floor.mjs: a hand-written middleware doing the same visible job),
 * and the "− floor" column is, for ratekeeper and the peer, the median of the per-round differences
 * of CPU µs per request to the floor's slice of the same round, with its interval.
 *
 * Targets are reported, never asserted, for ratekeeper: ≥ 0.95× bare throughput; CPU per request ≤
 * the floor's + 1 µs; never above the peer's (per-round difference ≤ 0); and a 429 no dearer than an
 * allowed request (the deny round's added µs minus the allow round's of the same round number ≤ 0). A
 * target is "met" or "missed" only when the whole interval says so, and "unclear" otherwise: on a
 * noisy machine the table must not claim more than it measured.
 */
import { median, medianInterval } from '../lib/stats.mjs';
import { PEER_NAMES } from './_servers.mjs';

export const TARGET_RATIO = 0.95;
export const TARGET_OVER_FLOOR_US = 1;

function statuses(slices, library, path) {
  const counts = {};
  let errors = 0;
  for (const s of slices) {
    for (const [code, n] of Object.entries(s.statusCounts)) counts[code] = (counts[code] ?? 0) + n;
    errors += s.errors;
  }
  const want = library !== 'bare' && path === 'deny' ? '429' : '200';
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const stray = total - (counts[want] ?? 0) + errors;
  return stray === 0 ? `all ${want}` : `${stray} not ${want}: ${JSON.stringify(counts)} errors ${errors}`;
}

/** judge compares an interval with a bound: 'met' when all of it is on the good side, 'missed' when none is. */
function judge([low, high], bound, higherIsBetter) {
  const good = higherIsBetter ? low >= bound : high <= bound;
  const bad = higherIsBetter ? high < bound : low > bound;
  return good ? 'met' : bad ? 'missed' : 'unclear';
}

/** Below this many rounds even the widest interval (lowest to highest round) is under 97 % sure. */
export const MIN_ROUNDS_FOR_VERDICT = 6;

/** perRound pairs two libraries' slices round by round: f(a, b) for each round that has both. */
function perRound(rounds, a, b, f) {
  return rounds.filter((r) => r.slices[a] !== undefined && r.slices[b] !== undefined).map((r) => f(r.slices[a], r.slices[b]));
}

const cpuDiff = (x, y) => x.cpuPerReq - y.cpuPerReq;

/** verdict judges ratekeeper's row against the targets (see the header comment). */
function verdict(library, path, row, all) {
  if (library !== 'ratekeeper') return '';
  const rounds = all.filter((r) => r.path === path);
  if (rounds.length < MIN_ROUNDS_FOR_VERDICT) return `(no verdict under ${MIN_ROUNDS_FOR_VERDICT} rounds)`;
  const parts = [`×${TARGET_RATIO}: ${judge(row.ratioCi, TARGET_RATIO, true)}`];
  if (row.overFloorCi !== undefined) parts.push(`floor+${TARGET_OVER_FLOOR_US}: ${judge(row.overFloorCi, TARGET_OVER_FLOOR_US, false)}`);
  const overPeer = perRound(rounds, 'ratekeeper', 'peer', cpuDiff);
  if (overPeer.length >= MIN_ROUNDS_FOR_VERDICT) parts.push(`≤ peer: ${judge(medianInterval(overPeer), 0, false)}`);
  if (path === 'deny') {
    const allow = all.filter((r) => r.path === 'allow');
    const n = Math.min(allow.length, rounds.length);
    const added = (r) => r.slices.ratekeeper.cpuPerReq - r.slices.bare.cpuPerReq;
    const dearer = Array.from({ length: n }, (_, i) => added(rounds[i]) - added(allow[i]));
    parts.push(`429 ≤ 200: ${judge(medianInterval(dearer), 0, false)}`);
  }
  return parts.join(', ');
}

const NAMES = { control: 'bare again (A/A control)', noop: 'empty middleware (noop)', floor: 'fair floor (hand-written)' };

/** summarize turns one framework's rounds into table rows. */
export function summarize({ framework, rounds }) {
  const rows = [];
  for (const path of ['allow', 'deny']) {
    const mine = rounds.filter((r) => r.path === path);
    const libraries = ['bare', 'floor', 'ratekeeper', 'peer', 'noop', 'control'].filter((l) => mine[0].slices[l] !== undefined);
    for (const library of libraries) {
      const slices = mine.map((r) => r.slices[library]);
      const ratios = mine.map((r) => r.slices[library].rps / r.slices.bare.rps);
      const diffs = mine.map((r) => r.slices[library].cpuPerReq - r.slices.bare.cpuPerReq);
      const overFloor = library === 'ratekeeper' || library === 'peer' ? perRound(mine, library, 'floor', cpuDiff) : [];
      const row = {
        framework,
        path,
        library,
        name: library === 'peer' ? PEER_NAMES[framework] : (NAMES[library] ?? library),
        rps: median(slices.map((s) => s.rps)),
        ratio: median(ratios),
        ratioCi: medianInterval(ratios),
        cpuPerReq: median(slices.map((s) => s.cpuPerReq)),
        added: median(diffs),
        addedCi: medianInterval(diffs),
        overFloor: overFloor.length > 0 ? median(overFloor) : undefined,
        overFloorCi: overFloor.length > 0 ? medianInterval(overFloor) : undefined,
        busy: median(slices.map((s) => s.busy)),
        clientBusy: median(slices.map((s) => s.clientBusy)),
        responses: statuses(slices, library, path),
      };
      row.verdict = verdict(library, path, row, rounds);
      rows.push(row);
    }
  }
  return rows;
}

const fmt = {
  int: (n) => Math.round(n).toLocaleString('en-US'),
  x: (n) => n.toFixed(2),
  us: (n) => n.toFixed(1),
  signed: (n) => (n >= 0 ? '+' : '') + n.toFixed(1),
  pct: (n) => `${Math.round(n * 100)}%`,
};

/** formatTable renders rows as a fixed-width text table (Markdown-compatible pipes). */
export function formatTable(rows) {
  const head = [
    'framework',
    'path',
    'library',
    'req/s',
    '× bare [95% CI]',
    'µs/req',
    '+µs/req [95% CI]',
    '− floor µs [95% CI]',
    'busy',
    'client',
    'responses',
    'targets (ratekeeper)',
  ];
  const body = rows.map((r) => [
    r.framework,
    r.path,
    r.name,
    fmt.int(r.rps),
    r.library === 'bare' ? '1.00' : `${fmt.x(r.ratio)} [${fmt.x(r.ratioCi[0])}, ${fmt.x(r.ratioCi[1])}]`,
    fmt.us(r.cpuPerReq),
    r.library === 'bare' ? '—' : `${fmt.signed(r.added)} [${fmt.signed(r.addedCi[0])}, ${fmt.signed(r.addedCi[1])}]`,
    r.overFloor === undefined ? '' : `${fmt.signed(r.overFloor)} [${fmt.signed(r.overFloorCi[0])}, ${fmt.signed(r.overFloorCi[1])}]`,
    fmt.pct(r.busy),
    fmt.pct(r.clientBusy),
    r.responses,
    r.verdict,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/**
 * pressureNote summarises the machine's CPU pressure over every measured slice (PSI "some": the share
 * of time at least one runnable task waited for a CPU); near 0 % means the run had the cores to itself.
 */
export function pressureNote(results) {
  const values = results.flatMap((r) => r.rounds.flatMap((round) => Object.values(round.slices).map((s) => s.pressure)));
  if (values.length === 0 || values.some((v) => !Number.isFinite(v))) return 'CPU pressure: not available (no /proc/pressure/cpu)';
  const rounds = results.flatMap((r) => r.rounds);
  const quiet = rounds.filter((r) => r.quiet === true).length;
  const probed = rounds.some((r) => r.quiet !== undefined) ? `; ${quiet} of ${rounds.length} rounds started after a quiet probe` : '';
  return `CPU pressure over the slices (PSI some: share of time a task waited for a CPU): median ${fmt.pct(median(values))}, ` + `max ${fmt.pct(Math.max(...values))}${probed}`;
}
