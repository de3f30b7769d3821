/**
 * What makes `pnpm demo` honest: it exits non-zero unless every answer it printed is one a correct
 * rate limiter gives. checkRows returns one sentence per violation (none means the run passed):
 *
 * - every status is 200 or 429, and every answer carries a `RateLimit` header (draft-10 is the default);
 * - every 429 carries `Retry-After` as whole seconds, at least 1;
 * - every burst at a limited route meets its limit (at least one 429): a limiter that never engaged
 *   would make a table of 200s that proves nothing; GET / (one request) must be 200;
 * - the pause obeys a valid Retry-After, and the first request after it is allowed: a client that waits
 *   as told is never turned away.
 */
import { waitFor } from './drive.mjs';

const DELAY_SECONDS = /^[1-9][0-9]*$/;

/** checkRows lists what is wrong with one framework's rows. */
export function checkRows(rows) {
  const problems = [];
  let answered = 0;
  for (const [i, row] of rows.entries()) {
    if (row.waitedMs !== undefined) problems.push(...checkPause(row, rows[i + 1]));
    else problems.push(...checkAnswer(row, answered++));
  }
  for (const burst of bursts(rows)) problems.push(...checkBurst(burst));
  return problems;
}

function checkAnswer(row, i) {
  const what = `request ${i + 1} (${row.method} ${row.path})`;
  const problems = [];
  if (row.status !== 200 && row.status !== 429) problems.push(`${what} answered ${row.status}, neither 200 nor 429`);
  if (row.rateLimit === null) problems.push(`${what} carries no RateLimit header`);
  if (row.status === 429 && !DELAY_SECONDS.test(row.retryAfter ?? '')) {
    problems.push(`${what} is a 429 with Retry-After ${JSON.stringify(row.retryAfter)}, not whole seconds ≥ 1`);
  }
  return problems;
}

function checkPause(pause, next) {
  if (waitFor(pause.asked) === 0) return [`the pause found no usable Retry-After to obey (got ${JSON.stringify(pause.asked)})`];
  if (next?.status !== 200) return [`the first request after waiting Retry-After: ${pause.asked} answered ${next?.status}, not 200`];
  return [];
}

function checkBurst(burst) {
  const { method, path } = burst[0];
  const denied = burst.filter((row) => row.status === 429).length;
  if (path === '/') return denied === 0 ? [] : [`GET / was denied on the first request`];
  return denied > 0 ? [] : [`${burst.length} quick ${method} ${path} never met their limit (no 429)`];
}

/** bursts splits the answers into runs of the same request, each starting at a script step. */
function bursts(rows) {
  const runs = [];
  for (const row of rows) {
    if (row.waitedMs !== undefined) continue;
    if (row.first) runs.push([row]);
    else runs.at(-1).push(row);
  }
  return runs;
}
