// renderSvg draws chartSeries()'s numbers as an SVG: one panel per algorithm, admitted requests per
// 100 ms as green bars above the line and denied ones as red bars below it, the traffic's phases as
// shaded bands, whole seconds (where fixed and sliding windows turn over) as dotted lines, and each
// panel's totals in its title. It computes nothing but coordinates.
const W = 1000;
const LEFT = 60;
const RIGHT = 20;
const TOP = 78;
const PANEL = 150;
const HALF = 56;
const BOTTOM = 52;
const GREEN = '#2e7d32';
const RED = '#c62828';

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function renderSvg(series) {
  const { algorithms, phases, binMs, durationMs } = series;
  const plotW = W - LEFT - RIGHT;
  const x = (ms) => LEFT + (ms / durationMs) * plotW;
  const binW = (binMs / durationMs) * plotW;
  const height = TOP + algorithms.length * PANEL + BOTTOM;
  const scale = Math.max(...algorithms.flatMap((a) => [...a.admittedPerBin, ...a.deniedPerBin]));
  const bar = (n) => (n / scale) * HALF;
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="13">`,
  );
  out.push(`<rect width="${W}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${LEFT}" y="24" font-size="17" font-weight="600" fill="#222">The same ${series.times.length} requests, four algorithms, each allowing 10 per second</text>`);
  out.push(
    `<text x="${LEFT}" y="44" fill="#555">Bars per 100 ms: <tspan fill="${GREEN}" font-weight="600">admitted</tspan> above the line, <tspan fill="${RED}" font-weight="600">denied</tspan> below. Dotted lines: whole seconds, where fixed windows turn over.</text>`,
  );
  const bandTop = TOP - 14;
  const bandBottom = TOP + algorithms.length * PANEL - 8;
  phases.forEach((p, i) => {
    const fill = p.label === 'idle' || p.label === '' ? '#f4f4f4' : i % 4 === 0 ? '#eef4fb' : '#fdf3e6';
    out.push(`<rect x="${x(p.from).toFixed(1)}" y="${bandTop}" width="${(x(p.to) - x(p.from)).toFixed(1)}" height="${bandBottom - bandTop}" fill="${fill}"/>`);
    if (p.label !== '') out.push(`<text x="${((x(p.from) + x(p.to)) / 2).toFixed(1)}" y="${bandTop - 4}" text-anchor="middle" fill="#444" font-size="12">${esc(p.label)}</text>`);
  });
  for (let s = 0; s <= durationMs; s += 1000) {
    out.push(`<line x1="${x(s).toFixed(1)}" y1="${bandTop}" x2="${x(s).toFixed(1)}" y2="${bandBottom}" stroke="#999" stroke-dasharray="2,3"/>`);
    out.push(`<text x="${x(s).toFixed(1)}" y="${bandBottom + 18}" text-anchor="middle" fill="#444">${s / 1000} s</text>`);
  }
  algorithms.forEach((a, i) => {
    const top = TOP + i * PANEL;
    const base = top + 18 + HALF;
    out.push(`<text x="${LEFT + 4}" y="${top + 10}" font-weight="600" fill="#222">${esc(a.label)}</text>`);
    out.push(
      `<text x="${W - RIGHT - 4}" y="${top + 10}" text-anchor="end" fill="#222"><tspan fill="${GREEN}" font-weight="600">${a.admitted} admitted</tspan> · <tspan fill="${RED}" font-weight="600">${a.denied} denied</tspan> · most in any 1 s: <tspan font-weight="600">${a.peakPerWindow}</tspan></text>`,
    );
    a.admittedPerBin.forEach((n, b) => {
      if (n > 0)
        out.push(`<rect x="${(x(b * binMs) + 1.5).toFixed(1)}" y="${(base - bar(n)).toFixed(1)}" width="${(binW - 3).toFixed(1)}" height="${bar(n).toFixed(1)}" fill="${GREEN}"/>`);
    });
    a.deniedPerBin.forEach((n, b) => {
      if (n > 0) out.push(`<rect x="${(x(b * binMs) + 1.5).toFixed(1)}" y="${base.toFixed(1)}" width="${(binW - 3).toFixed(1)}" height="${bar(n).toFixed(1)}" fill="${RED}"/>`);
    });
    out.push(`<line x1="${LEFT}" y1="${base}" x2="${W - RIGHT}" y2="${base}" stroke="#333"/>`);
    out.push(`<text x="${LEFT - 6}" y="${base - HALF + 4}" text-anchor="end" fill="#666" font-size="11">${scale}</text>`);
    out.push(`<text x="${LEFT - 6}" y="${base + 4}" text-anchor="end" fill="#666" font-size="11">0</text>`);
    out.push(`<text x="${LEFT - 6}" y="${base + HALF + 4}" text-anchor="end" fill="#666" font-size="11">${scale}</text>`);
  });
  out.push(
    `<text x="${LEFT}" y="${height - 10}" fill="#666" font-size="11">Drawn by \`pnpm chart\` from a ManualClock run of @ratekeeper/core (benchmarks/chart); one client; totals checked by chart.test.mjs.</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
