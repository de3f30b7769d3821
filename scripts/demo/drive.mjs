/**
 * The client side of `pnpm demo`: one scripted burst against one example server, over loopback, with
 * the global fetch. Requests go one after another (a client as quick as the loopback allows), each
 * with a timeout, and every answer is recorded as a row: when it was sent (ms since the first request),
 * what was asked, the status, `Retry-After`, `RateLimit`, and for a 429 the policies its problem+json
 * body names as violated.
 *
 * The script: GET / (it also proves the server answers), 8 quick GET /search (the per-second member
 * of the composite denies the last 3), then a pause of exactly the Retry-After the last 429 asked for,
 * then 4 more GET /search (the per-minute member denies the 4th), then 6 POST /login (the 6th is over
 * 5 per minute).
 */
export const SCRIPT = [
  { method: 'GET', path: '/', count: 1 },
  { method: 'GET', path: '/search', count: 8 },
  { obeyRetryAfter: true },
  { method: 'GET', path: '/search', count: 4 },
  { method: 'POST', path: '/login', count: 6 },
];

const REQUEST_TIMEOUT_MS = 2000;
export const MAX_WAIT_S = 5;

/** drive runs SCRIPT against `url` and resolves to its rows (and pauses, as rows with `waitedMs`). */
export async function drive(url) {
  const rows = [];
  const t0 = performance.now();
  for (const step of SCRIPT) {
    if (step.obeyRetryAfter) {
      const asked = rows.findLast((row) => row.status === 429)?.retryAfter ?? null;
      const waitedMs = waitFor(asked);
      await new Promise((done) => setTimeout(done, waitedMs));
      rows.push({ waitedMs, asked });
      continue;
    }
    for (let i = 0; i < step.count; i++) rows.push(await request(url, step, t0, i === 0));
  }
  return rows;
}

async function request(url, { method, path }, t0, first) {
  const sentMs = Math.round(performance.now() - t0);
  const res = await fetch(url + path, { method, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const body = await res.text();
  return {
    sentMs,
    method,
    path,
    first,
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    rateLimit: res.headers.get('ratelimit'),
    policy: res.headers.get('ratelimit-policy'),
    violated: res.status === 429 ? violatedPolicies(body) : undefined,
  };
}

/** waitFor is the pause a Retry-After value asks for; 0 when it is missing, malformed or too long for a demo (checks.mjs reports that). */
export function waitFor(retryAfter) {
  const seconds = Number(retryAfter);
  return retryAfter !== null && Number.isInteger(seconds) && seconds >= 1 && seconds <= MAX_WAIT_S ? seconds * 1000 : 0;
}

function violatedPolicies(body) {
  try {
    const list = JSON.parse(body)['violated-policies'];
    return Array.isArray(list) ? list.join(', ') : '?';
  } catch {
    return '?';
  }
}
