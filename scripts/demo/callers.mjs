/**
 * The second part of `pnpm demo`: limits from who the caller is, on the two examples that show them,
 * and the tRPC example (its procedures are not the REST routes drive.mjs sends).
 *
 * - examples/api-keys: 4 × GET /reports/3 with a free key, then 4 with a pro key. A 3 KiB report is
 *   charged 4 units once sent (settle by size): the free plan (10 units a minute) denies the 4th, the
 *   pro plan (100) none, and each answers with its own RateLimit-Policy.
 * - examples/login: 3 good logins, 5 bad ones, then a good one: only failures count, and the sixth
 *   attempt after 5 failures is refused with a ban of an hour (Retry-After: 3600).
 * - examples/trpc: a `hello` query, 6 `login` mutations (5 a minute: the 6th answers 429 with
 *   Retry-After), then 8 `search` queries batched in one request, decided at one instant (each call
 *   counted: 5 a second admits 5, and tRPC answers the mixed batch 207 Multi-Status).
 *
 * `expected` states, row by row, the status a correct limiter gives; checkCallers reports every row
 * that differs, every 429 without a whole-second Retry-After, and every answer without RateLimit.
 */
const REQUEST_TIMEOUT_MS = 2000;

export const CALLERS = {
  'api-keys': [
    ...Array.from({ length: 4 }, (_, i) => ({ method: 'GET', path: '/reports/3', headers: { 'x-api-key': 'free-key-1' }, label: 'free key', expected: i < 3 ? 200 : 429 })),
    ...Array.from({ length: 4 }, () => ({ method: 'GET', path: '/reports/3', headers: { 'x-api-key': 'pro-key-1' }, label: 'pro key', expected: 200 })),
  ],
  login: [
    ...Array.from({ length: 3 }, () => login('correct horse', 'good', 200)),
    ...Array.from({ length: 5 }, () => login('guess', 'bad', 401)),
    login('correct horse', 'good', 429),
  ],
  trpc: [
    { method: 'GET', path: '/trpc/hello', label: 'query', expected: 200 },
    ...Array.from({ length: 6 }, (_, i) => ({
      method: 'POST',
      path: '/trpc/login',
      headers: { 'content-type': 'application/json' },
      label: 'mutation',
      expected: i < 5 ? 200 : 429,
    })),
    { method: 'GET', path: searchBatch(8), shown: '/trpc/search,…×8?batch=1', label: '8 calls in a batch', expected: 207 },
  ],
};

/** searchBatch is the path of one request carrying `n` search calls (httpBatchLink's GET form). */
function searchBatch(n) {
  const input = Object.fromEntries(Array.from({ length: n }, (_, i) => [i, `q${i}`]));
  return `/trpc/${new Array(n).fill('search').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
}

function login(password, label, expected) {
  return { method: 'POST', path: '/login', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password }), label, expected };
}

/** driveCallers sends one example's script and resolves to rows for demo/table.mjs. */
export async function driveCallers(url, script) {
  const rows = [];
  const t0 = performance.now();
  for (const step of script) {
    const sentMs = Math.round(performance.now() - t0);
    const res = await fetch(url + step.path, { method: step.method, headers: step.headers, body: step.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    rows.push({
      sentMs,
      method: step.method,
      path: `${step.shown ?? step.path} (${step.label})`,
      status: res.status,
      expected: step.expected,
      retryAfter: res.headers.get('retry-after'),
      rateLimit: res.headers.get('ratelimit'),
      policy: res.headers.get('ratelimit-policy'),
      violated: res.status === 429 || res.status === 207 ? violated(text) : undefined,
    });
  }
  return rows;
}

/** violated names a 429's violated policies (problem+json), or tRPC's error codes (a batch's, counted). */
function violated(text) {
  const body = JSON.parse(text);
  if (Array.isArray(body)) {
    const codes = body.map((call) => call.error?.data?.code).filter((code) => code !== undefined);
    return codes.length === 0 ? undefined : `${codes.length} × ${codes[0]}`;
  }
  return body['violated-policies']?.join(', ') ?? body.error?.data?.code;
}

/** checkCallers lists what is wrong with one example's rows. */
export function checkCallers(rows) {
  const problems = [];
  for (const [i, row] of rows.entries()) {
    const what = `request ${i + 1} (${row.method} ${row.path})`;
    if (row.status !== row.expected) problems.push(`${what}: status ${row.status}, expected ${row.expected}`);
    if (row.rateLimit === null) problems.push(`${what}: no RateLimit header`);
    if (row.status === 429 && !/^[1-9][0-9]*$/.test(row.retryAfter ?? '')) problems.push(`${what}: 429 without a whole-second Retry-After`);
  }
  return problems;
}
