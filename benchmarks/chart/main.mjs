// `pnpm chart`: writes docs/algorithms.svg from chartSeries() (the numbers) and renderSvg() (the
// drawing), and prints the totals it drew.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chartSeries } from './series.mjs';
import { renderSvg } from './svg.mjs';

export const SVG_PATH = fileURLToPath(new URL('../../docs/algorithms.svg', import.meta.url));

const series = chartSeries();
writeFileSync(SVG_PATH, renderSvg(series));
for (const a of series.algorithms)
  console.log(`${a.label.padEnd(40)} ${String(a.admitted).padStart(3)} admitted  ${String(a.denied).padStart(3)} denied  most in any 1 s: ${a.peakPerWindow}`);
console.log(`wrote ${SVG_PATH}`);
