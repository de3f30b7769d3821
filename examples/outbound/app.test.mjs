// The outbound example over real HTTP: 25 calls against an API that admits 5 at once and 20 per
// second. Fired at once, all but 5 get 429 (less one per 50 ms the batch takes to arrive); through wait() (keeping 2 tokens of margin for the way there),
// all 25 get 200, and no call leaves before its token is there: the k-th call (k ≥ 3) is sent no
// earlier than (k − 2) × 50 ms after the start.
import { afterEach, expect, it } from 'vitest';
import { startApi } from './api.mjs';
import { callAll } from './client.mjs';

const LIMIT = { capacity: 5, refillPerSecond: 20 };
let api;
afterEach(() => api?.close());

it('gets 429s when it fires the whole batch at once', async () => {
  api = await startApi(LIMIT);
  const started = performance.now();
  const { statuses } = await callAll(api.url, 25, { ...LIMIT, naive: true });
  // 5 at once, plus one more for every 50 ms the batch took to arrive: all the rest are 429.
  const refilled = Math.ceil((performance.now() - started) / 50);
  const limited = statuses.filter((s) => s === 429).length;
  expect(limited).toBeLessThanOrEqual(20);
  expect(limited).toBeGreaterThanOrEqual(20 - refilled);
  expect(statuses.filter((s) => s === 200).length).toBe(25 - limited);
});

it('gets zero 429s through wait, never sending a call before the limit admits it', async () => {
  api = await startApi(LIMIT);
  const { statuses, sentAtMs } = await callAll(api.url, 25, LIMIT);
  expect(statuses).toEqual(Array(25).fill(200));
  const sorted = [...sentAtMs].sort((a, b) => a - b);
  // systemClock counts whole milliseconds: allow the 1 ms it may round the start down by.
  sorted.forEach((at, k) => expect(at).toBeGreaterThanOrEqual(Math.max(0, (k - 2) * 50 - 1)));
});
