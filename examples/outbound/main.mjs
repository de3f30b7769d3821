/**
 * `pnpm --filter @ratekeeper/example-outbound start`: starts the API (5 at once, then 20 per second),
 * sends it 25 calls naively and then 25 through wait, and prints what each got.
 */
import { startApi } from './api.mjs';
import { callAll } from './client.mjs';

const LIMIT = { capacity: 5, refillPerSecond: 20 };
for (const naive of [true, false]) {
  const api = await startApi(LIMIT);
  const started = performance.now();
  const { statuses } = await callAll(api.url, 25, { ...LIMIT, naive });
  const count = (s) => statuses.filter((x) => x === s).length;
  console.log(`${naive ? 'all at once   ' : 'through wait()'}: ${count(200)} × 200, ${count(429)} × 429 in ${Math.round(performance.now() - started)} ms`);
  await api.close();
}
