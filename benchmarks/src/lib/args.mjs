// Command-line flags shared by the sections: `--name=value` or `--name` (true). Anything else is
// ignored here, so that a section reads only the flags it knows and passes the rest on.

/** flags parses `args` into { name: value } (values stay strings; a bare flag is 'true'). */
export function flags(args) {
  const out = {};
  for (const arg of args) {
    const m = /^--([a-z][\w-]*)(?:=(.*))?$/.exec(arg);
    if (m) out[m[1]] = m[2] ?? 'true';
  }
  return out;
}

/** intFlag reads a positive integer flag, with a default; a bad value throws naming the flag. */
export function intFlag(parsed, name, fallback) {
  if (parsed[name] === undefined) return fallback;
  const value = Number(parsed[name].replaceAll('_', ''));
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer, got ${parsed[name]}`);
  return value;
}

/** fractionFlag reads a number flag from 0 to 1 (0 excluded unless `zero`), with a default; a bad value throws naming the flag. */
export function fractionFlag(parsed, name, fallback, { zero }) {
  if (parsed[name] === undefined) return fallback;
  const value = Number(parsed[name]);
  if (!(value <= 1 && (value > 0 || (zero && value === 0)))) throw new RangeError(`--${name} must be a number ${zero ? 'from 0' : 'above 0 up'} to 1, got ${parsed[name]}`);
  return value;
}
