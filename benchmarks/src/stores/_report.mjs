// The stores section's figures: medians over rounds and ratios taken within each round, as Markdown
// tables (pasteable into the README) and as one JSON object per database.
import { grouped, fixed } from '../lib/table.mjs';
import { median } from '../lib/stats.mjs';
import { SCENARIOS } from './_measure.mjs';

/** The figure of one scenario's result: a latency scenario's p50 (and p99 under `p99`), a throughput scenario's rate. */
const COLUMNS = [
  { id: 'lone', title: 'lone call p50', of: (r) => r.p50, unit: 'µs' },
  { id: 'lone', title: 'lone call p99', of: (r) => r.p99, unit: 'µs', key: 'lone-p99' },
  { id: 'probe', title: 'probe p50', of: (r) => r.p50, unit: 'µs' },
  ...SCENARIOS.filter((s) => s.kind === 'rate').map((s) => ({ id: s.id, title: s.title, of: (r) => r.rate, unit: '/s' })),
];
const columnKey = (col) => col.key ?? col.id;

/** perRoundRatio is the median over rounds of `a`'s figure over `b`'s in the same round (time ratio for µs, rate ratio for /s). */
function perRoundRatio(a, b, col) {
  const n = Math.min(a.length, b.length);
  const ratios = [];
  for (let i = 0; i < n; i++) ratios.push(col.of(a[i]) / col.of(b[i]));
  return median(ratios);
}

/** summarise turns one database's samples into { contenders: [...] } with medians and ratios per column. */
export function summarise(db, { samples, counts }, statements) {
  const rlf = db.contenders.find((c) => c.role === 'rlf');
  return {
    name: db.name,
    server: db.server,
    settings: db.settings,
    contenders: db.contenders.map((c) => {
      const mine = samples[c.id];
      const out = {
        id: c.id,
        label: c.label,
        role: c.role,
        algorithm: c.algorithm,
        client: c.client,
        floor: c.floor,
        decisions: { admitted: counts[c.id][0], denied: counts[c.id][1], byFailurePolicy: counts[c.id][2] },
        statementsPerCall: statements[c.id],
        median: {},
        xFloor: {},
        xRlf: {},
        rounds: mine,
      };
      for (const col of COLUMNS) {
        const k = columnKey(col);
        out.median[k] = median(mine[col.id].map(col.of));
        if (c.floor !== undefined) out.xFloor[k] = perRoundRatio(mine[col.id], samples[c.floor][col.id], col);
        if (c.role === 'ratekeeper' && rlf !== undefined) out.xRlf[k] = perRoundRatio(mine[col.id], samples[rlf.id][col.id], col);
      }
      return out;
    }),
  };
}

const absolute = (value, unit) => (unit === 'µs' ? `${value >= 100 ? grouped(value) : fixed(value, 1)} µs` : `${grouped(value)}/s`);
const times = (value) => `${fixed(value, 2)}×`;

function markdown(header, rows) {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** A mark on a row some of whose decisions were denied or left to the failure policy (explained under the table). */
const flagged = (c) => c.decisions.denied + c.decisions.byFailurePolicy > 0;
const name = (c) => (flagged(c) ? `${c.label} ¹` : c.label);

/** tables renders one database's summary: × floor, × rate-limiter-flexible, absolute figures. */
export function tables(summary) {
  const header = ['contender', ...COLUMNS.map((c) => `${c.title}`)];
  const versus = markdown(
    header,
    summary.contenders.map((c) => [name(c), ...COLUMNS.map((col) => (c.role === 'floor' ? absolute(c.median[columnKey(col)], col.unit) : times(c.xFloor[columnKey(col)])))]),
  );
  const rk = summary.contenders.filter((c) => c.role === 'ratekeeper' && Object.keys(c.xRlf).length > 0);
  const versusRlf = markdown(
    header,
    rk.map((c) => [name(c), ...COLUMNS.map((col) => times(c.xRlf[columnKey(col)]))]),
  );
  const stmt = (c, k) => (c.statementsPerCall === undefined ? '—' : fixed(c.statementsPerCall[k], 2));
  const raw = markdown(
    [...header, 'statements / decision', 'statements / probe'],
    summary.contenders.map((c) => [name(c), ...COLUMNS.map((col) => absolute(c.median[columnKey(col)], col.unit)), stmt(c, 'consume'), stmt(c, 'peek')]),
  );
  const notes = summary.contenders
    .filter(flagged)
    .map(
      (c) =>
        `¹ ${c.label}: ${grouped(c.decisions.denied)} denied and ${grouped(c.decisions.byFailurePolicy)} decided by the failure policy, of ${grouped(c.decisions.admitted + c.decisions.denied + c.decisions.byFailurePolicy)} timed decisions.`,
    );
  return [
    `${summary.server}: × the floor on the same client (latency columns: time ratio, lower is better; throughput: rate ratio, higher is better); floor rows in absolute figures`,
    '',
    versus,
    '',
    `${summary.server}: ratekeeper × rate-limiter-flexible (same conventions)`,
    '',
    versusRlf,
    '',
    `${summary.server}: medians over rounds, and statements sent per lone decision and per probe (counted at the driver, untimed)`,
    '',
    raw,
    ...(notes.length > 0 ? ['', ...notes] : []),
  ].join('\n');
}
