/**
 * Go-style table runner. Each row is one call at a fixed instant (`at`, milliseconds after the table's
 * origin) on a ManualClock; the fields a row names are compared exactly, the others ignored. Every
 * mismatch is collected and reported together as `step 3 at t+500: want {…} got {…}`, so one failing
 * table shows the whole story instead of its first symptom.
 */
import type { Decision, ManualClock, RateLimiter } from '../../src/index.js';

export interface Row {
  /** Milliseconds after the table's origin. */
  readonly at: number;
  readonly key?: string;
  readonly cost?: number;
  /** 'peek' decides without recording; the default is 'consume'. */
  readonly op?: 'consume' | 'peek';
  readonly allowed?: boolean;
  readonly remaining?: number;
  readonly retryAfterMs?: number;
  readonly resetAfterMs?: number;
}

const FIELDS = ['allowed', 'remaining', 'retryAfterMs', 'resetAfterMs'] as const;

/** runTable plays `rows` against `limiter`, setting `clock` to origin + row.at before each call. */
export function runTable(limiter: RateLimiter<'sync'>, clock: ManualClock, origin: number, rows: readonly Row[]): Decision[] {
  const failures: string[] = [];
  const decisions = rows.map((row, i) => {
    clock.set(origin + row.at);
    const key = row.key ?? 'k';
    const decision = row.op === 'peek' ? limiter.peek(key, row.cost) : limiter.consume(key, row.cost);
    const want: Record<string, unknown> = {};
    const got: Record<string, unknown> = {};
    for (const field of FIELDS) {
      if (row[field] === undefined) continue;
      want[field] = row[field];
      got[field] = decision[field];
    }
    if (FIELDS.some((f) => row[f] !== undefined && !Object.is(row[f], decision[f]))) {
      failures.push(`step ${i} at t+${row.at}${row.key === undefined ? '' : ` key ${JSON.stringify(key)}`}: want ${show(want)} got ${show(got)}`);
    }
    return decision;
  });
  if (failures.length > 0) throw new Error(`${failures.length} of ${rows.length} steps differ:\n${failures.join('\n')}`);
  return decisions;
}

function show(fields: Record<string, unknown>): string {
  return `{ ${Object.entries(fields)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ')} }`;
}
