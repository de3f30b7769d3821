// The part of npm's semver ranges scripts/check-manifests.mjs reads in peer dependencies, without a
// dependency: unions (`a || b`) of space-separated comparators, each `^v`, `~v`, `>=v`, `>v`, `<=v`,
// `<v`, `=v` or a bare `v`, where v is `major[.minor[.patch]]` (missing parts are 0; `^`, `~` and a
// bare v treat them as npm does). Anything else (x-ranges, hyphen ranges, prereleases, `*`) throws a
// TypeError naming the range, so a peer written that way is checked by hand rather than misread.

/** parse answers [major, minor, patch, parts written] of `text`, or throws. */
function parse(text, range) {
  if (!/^\d+(\.\d+){0,2}$/.test(text)) throw new TypeError(`semver-range: cannot read "${range}" (at "${text}")`);
  const parts = text.split('.').map(Number);
  return [parts[0], parts[1] ?? 0, parts[2] ?? 0, parts.length];
}

const cmp = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** interval answers one comparator as [lowest allowed, lowest excluded above] (undefined: unbounded). */
function interval(comparator, range) {
  const [, op = '', text] = /^(\^|~|>=|<=|>|<|=)?(.*)$/.exec(comparator);
  const [major, minor, patch, written] = parse(text, range);
  const low = [major, minor, patch];
  // Above every version that `text` names: 1 -> 2.0.0, 1.2 -> 1.3.0, 1.2.3 -> 1.2.4.
  const above = written === 1 ? [major + 1, 0, 0] : written === 2 ? [major, minor + 1, 0] : [major, minor, patch + 1];
  if (op === '^') return [low, major > 0 || written === 1 ? [major + 1, 0, 0] : minor > 0 || written === 2 ? [0, minor + 1, 0] : [0, 0, patch + 1]];
  if (op === '~') return [low, written === 1 ? [major + 1, 0, 0] : [major, minor + 1, 0]];
  if (op === '>=') return [low, undefined];
  if (op === '>') return [above, undefined];
  if (op === '<') return [[0, 0, 0], low];
  if (op === '<=') return [[0, 0, 0], above];
  return [low, above];
}

/** sets answers each `||` alternative as its comparators' intervals. */
const sets = (range) =>
  range.split('||').map((set) =>
    set
      .trim()
      .split(/\s+/)
      .map((c) => interval(c, range)),
  );

/** satisfies says whether the release `version` (x.y.z) is in `range`. */
export function satisfies(version, range) {
  const v = parse(version, version);
  return sets(range).some((set) => set.every(([low, high]) => cmp(v, low) >= 0 && (high === undefined || cmp(v, high) < 0)));
}

/** bounded says whether every alternative of `range` has an upper limit. */
export function bounded(range) {
  return sets(range).every((set) => set.some(([, high]) => high !== undefined));
}
