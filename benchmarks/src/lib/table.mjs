// Plain-text tables for the terminal and for pasting into a README verbatim. Columns are padded to
// their widest cell; a column whose non-empty cells all start like a number (a digit, a sign, '±',
// or '—' for "no figure") is right-aligned.

const numeric = /^[-+±—\d]/;

/** formatTable renders `rows` (arrays of strings) under `header`, separated by a rule. */
export function formatTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const right = header.map((_, i) => rows.length > 0 && rows.every((r) => r[i] === '' || numeric.test(String(r[i]))));
  const line = (cells) =>
    cells
      .map((c, i) => (right[i] ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** fixed formats a number with `digits` decimals, or '—' when it is not finite. */
export const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

/** grouped formats an integer with thin thousands separators (1,000,000). */
export const grouped = (value) => Math.round(value).toLocaleString('en-US');
