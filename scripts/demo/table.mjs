/**
 * The demo's output: one compact table per framework, one line per answer, in the order sent. `ms` is
 * when the request left (since the framework's first request), `denied by` the policies a 429's
 * problem+json body names as violated, and `RateLimit` the header verbatim (one item per policy that
 * applied: `r` units remaining, `t` seconds until more are available). Below the table, the
 * `RateLimit-Policy` each route announced (`q` quota per `w` seconds).
 */
const COLUMNS = [
  ['ms', 6, (r) => String(r.sentMs), 'end'],
  ['request', 13, (r) => `${r.method} ${r.path}`],
  ['status', 7, (r) => String(r.status)],
  ['Retry-After', 12, (r) => r.retryAfter ?? '-'],
  ['denied by', 10, (r) => r.violated ?? ''],
  ['RateLimit', 0, (r) => r.rateLimit ?? '(none)'],
];

/** formatTable renders one framework's rows (pauses included) as lines of text. */
export function formatTable(title, rows) {
  // The request column fits its longest entry (the per-caller examples label their requests).
  COLUMNS[1][1] = Math.max(13, ...rows.filter((r) => r.waitedMs === undefined).map((r) => `${r.method} ${r.path}`.length));
  const lines = [title, line(COLUMNS.map(([name]) => name))];
  for (const row of rows) {
    if (row.waitedMs !== undefined) lines.push(`${' '.repeat(8)}… waits ${row.waitedMs} ms, as Retry-After: ${row.asked ?? '(none)'} asked`);
    else lines.push(line(COLUMNS.map(([, , cell]) => cell(row))));
  }
  lines.push('', ...policies(rows));
  return lines.join('\n');
}

function line(cells) {
  return cells
    .map((text, i) => {
      const [, width, , align] = COLUMNS[i];
      return align === 'end' ? text.padStart(width) : text.padEnd(width);
    })
    .join('  ')
    .trimEnd();
}

/** policies lists each route's RateLimit-Policy once (or every distinct one, should they differ). */
function policies(rows) {
  const seen = new Map();
  for (const row of rows) {
    if (row.waitedMs !== undefined) continue;
    const request = `${row.method} ${row.path}`;
    if (!seen.has(request)) seen.set(request, new Set());
    seen.get(request).add(row.policy ?? '(none)');
  }
  return [...seen].map(([request, values]) => `${' '.repeat(8)}RateLimit-Policy of ${request.padEnd(12)} ${[...values].join(' | ')}`);
}
