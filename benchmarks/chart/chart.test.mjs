/**
 * The picture's numbers come from the code: chartSeries() runs the real limiters on a ManualClock, and
 * this test pins the outcome of the scenario, algorithm by algorithm (totals and the most admitted in
 * any 1 s), checks the per-bin series add up to the totals, that the SVG shows exactly those totals,
 * and that the committed docs/algorithms.svg is what `pnpm chart` draws today (so it cannot go stale).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chartSeries, requestTimes } from './series.mjs';
import { renderSvg } from './svg.mjs';

const series = chartSeries();
const byId = Object.fromEntries(series.algorithms.map((a) => [a.id, a]));
const sum = (xs) => xs.reduce((s, x) => s + x, 0);

describe('the algorithms chart', () => {
  it('sends 90 requests: 25 steady, 40 in a burst across the 3 s boundary, 25 after the idle period', () => {
    const times = requestTimes();
    expect(times.length).toBe(90);
    expect(times.filter((t) => t < 2000).length).toBe(25);
    expect(times.filter((t) => t >= 2900 && t < 3100).length).toBe(40);
    expect(times.filter((t) => t >= 3100 && t < 5000).length).toBe(0);
    expect(times.filter((t) => t >= 5000).length).toBe(25);
  });

  it('admits and denies exactly these totals per algorithm', () => {
    const totals = Object.fromEntries(series.algorithms.map((a) => [a.id, [a.admitted, a.denied, a.peakPerWindow]]));
    expect(totals).toEqual({
      'token-bucket': [55, 35, 19],
      'fixed-window': [50, 40, 20],
      'sliding-window': [39, 51, 10],
      'sliding-log': [40, 50, 10],
    });
  });

  it('shows the fixed window letting 2 × 10 through across the boundary, and the sliding log 10', () => {
    const across = (a) => sum(a.verdicts.map((v, i) => (v && series.times[i] >= 2900 && series.times[i] < 3100 ? 1 : 0)));
    expect(across(byId['fixed-window'])).toBe(20);
    expect(across(byId['sliding-log'])).toBe(10);
    expect(byId['token-bucket'].peakPerWindow).toBeLessThanOrEqual(10 + 10); // C + R·T for T just under 1 s
  });

  it('has per-bin series that add up to the totals', () => {
    for (const a of series.algorithms) {
      expect([sum(a.admittedPerBin), sum(a.deniedPerBin)]).toEqual([a.admitted, a.denied]);
      expect(a.verdicts.length).toBe(series.times.length);
    }
  });

  it('draws exactly those totals in the SVG', () => {
    const svg = renderSvg(series);
    for (const a of series.algorithms) {
      expect(svg).toContain(`>${a.label}</text>`);
      expect(svg).toContain(
        `${a.admitted} admitted</tspan> · <tspan fill="#c62828" font-weight="600">${a.denied} denied</tspan> · most in any 1 s: <tspan font-weight="600">${a.peakPerWindow}</tspan>`,
      );
    }
    const bars = (svg.match(/<rect [^>]*fill="#(2e7d32|c62828)"\/>/g) ?? []).length;
    expect(bars).toBe(sum(series.algorithms.map((a) => a.admittedPerBin.filter((n) => n > 0).length + a.deniedPerBin.filter((n) => n > 0).length)));
  });

  it('is what docs/algorithms.svg holds (run `pnpm chart` after changing the scenario or the drawing)', () => {
    const committed = readFileSync(new URL('../../docs/algorithms.svg', import.meta.url), 'utf8');
    expect(committed).toBe(renderSvg(series));
  });
});
