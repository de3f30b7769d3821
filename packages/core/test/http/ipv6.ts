/**
 * IPv6 addresses for the ipKey properties, as eight 16-bit groups, with two things the code under test
 * must not share: spellings (every way RFC 4291 lets one address be written: compressed at any zero
 * run, zero-padded, either case per group, a dotted-quad tail, a zone id) and a BigInt model of what
 * the key must distinguish (the /bits prefix, or the whole IPv4 address of an IPv4-mapped or
 * IPv4-compatible one, or no key for the unspecified address). Nothing here calls or copies ip.ts.
 */
import fc from 'fast-check';

/** Eight groups, each 0 to 0xffff, most significant first. */
export type Groups = readonly number[];

/** toBigInt reads the groups as one 128-bit number. */
export function toBigInt(groups: Groups): bigint {
  return groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

/** isMapped tells whether the address is in ::ffff:0:0/96, by value. */
export function isMapped(groups: Groups): boolean {
  return toBigInt(groups) >> 32n === 0xffffn;
}

/** isCompatible tells whether the address is IPv4-compatible: in ::/96, and not the loopback ::1. */
export function isCompatible(groups: Groups): boolean {
  const n = toBigInt(groups);
  return n >> 32n === 0n && n !== 1n;
}

/** carriesV4 tells whether the key is the IPv4 address in the low 32 bits (mapped or compatible). */
export function carriesV4(groups: Groups): boolean {
  return isMapped(groups) || isCompatible(groups);
}

/** isUnspecified: the address carries 0.0.0.0 (:: among them), which names no client. */
export function isUnspecified(groups: Groups): boolean {
  return carriesV4(groups) && (toBigInt(groups) & 0xffffffffn) === 0n;
}

/** quad renders the low 32 bits as a dotted quad. */
export function quad(groups: Groups): string {
  const low = Number(toBigInt(groups) & 0xffffffffn);
  return [24, 16, 8, 0].map((shift) => (low >>> shift) & 255).join('.');
}

/** modelKey is what two addresses must share to share a key: none, the IPv4 address, or the /bits prefix. */
export function modelKey(groups: Groups, bits: number): string {
  if (isUnspecified(groups)) return 'none';
  return carriesV4(groups) ? `v4 ${quad(groups)}` : `v6 ${(toBigInt(groups) >> BigInt(128 - bits)).toString(16)}`;
}

/** flipBit returns the address with bit `i` (0 = most significant) inverted. */
export function flipBit(groups: Groups, i: number): Groups {
  return groups.map((g, j) => (j === i >> 4 ? g ^ (1 << (15 - (i & 15))) : g));
}

/** How to write an address; every field is one freedom the text format allows. */
export interface Spelling {
  /** Leading zeros added per group (capped at four digits). */
  readonly pad: readonly number[];
  readonly upper: readonly boolean[];
  /** Which maximal run of zero groups '::' replaces (modulo runs + 1; the last choice: none). */
  readonly run: number;
  /** Write the low 32 bits as a dotted quad. */
  readonly dotted: boolean;
  readonly zone: string | undefined;
}

/** spell writes `groups` the way `s` says. */
export function spell(groups: Groups, s: Spelling): string {
  return write(groups, s, (runs) => runs[s.run % (runs.length + 1)]);
}

type Run = readonly [number, number];

function write(groups: Groups, s: Spelling, choose: (runs: readonly Run[]) => Run | undefined): string {
  const hexCount = s.dotted ? 6 : 8;
  const parts = groups.slice(0, hexCount).map((g, i) => {
    const hex = g.toString(16);
    const padded = hex.padStart(Math.min(4, hex.length + (s.pad[i] ?? 0)), '0');
    return s.upper[i] === true ? padded.toUpperCase() : padded;
  });
  const tail = s.dotted ? [quad(groups)] : [];
  const run = choose(zeroRuns(groups.slice(0, hexCount)));
  const text = run === undefined ? [...parts, ...tail].join(':') : `${parts.slice(0, run[0]).join(':')}::${[...parts.slice(run[1]), ...tail].join(':')}`;
  return s.zone === undefined ? text : `${text}%${s.zone}`;
}

/** zeroRuns lists the maximal runs [start, end) of zero groups. */
function zeroRuns(groups: Groups): Run[] {
  const runs: Run[] = [];
  for (let i = 0; i < groups.length; i++) {
    if (groups[i] !== 0) continue;
    let end = i;
    while (groups[end] === 0) end++;
    runs.push([i, end]);
    i = end;
  }
  return runs;
}

const plain: Spelling = { pad: [], upper: [], run: 0, dotted: false, zone: undefined };

/** The five renderings of the reliability plan (scenario 42), by name. */
export function renderings(groups: Groups, zoneId: string): Record<string, string> {
  return {
    compressed: compressed(groups),
    expanded: write(groups, { ...plain, pad: [4, 4, 4, 4, 4, 4, 4, 4] }, () => undefined),
    uppercase: compressed(groups).toUpperCase(),
    'dotted-quad tail': write(groups, { ...plain, dotted: true }, longest),
    'zone id': `${compressed(groups)}%${zoneId}`,
  };
}

/** compressed is RFC 5952's text: lower case, no leading zeros, the first longest run of 2+ zero groups as '::'. */
export function compressed(groups: Groups): string {
  return write(groups, plain, longest);
}

function longest(runs: readonly Run[]): Run | undefined {
  let best: Run | undefined;
  for (const run of runs) if (run[1] - run[0] >= 2 && (best === undefined || run[1] - run[0] > best[1] - best[0])) best = run;
  return best;
}

const group = fc.oneof(
  { arbitrary: fc.constant(0), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 0xffff }), weight: 5 },
  { arbitrary: fc.constantFrom(1, 0xff, 0x100, 0xffff), weight: 1 },
);

/** Any address: zero runs of every length are common, one in eleven is IPv4-mapped, one IPv4-compatible (::, ::1 among them). */
export const address: fc.Arbitrary<Groups> = fc.oneof(
  { arbitrary: fc.array(group, { minLength: 8, maxLength: 8 }), weight: 9 },
  { arbitrary: fc.tuple(group, group).map(([a, b]) => [0, 0, 0, 0, 0, 0xffff, a, b]), weight: 1 },
  { arbitrary: fc.tuple(group, group).map(([a, b]) => [0, 0, 0, 0, 0, 0, a, b]), weight: 1 },
);

/** Interface names and numeric scope ids, short enough that every spelling stays under 64 characters. */
export const zone = fc.stringMatching(/^[a-z0-9._-]{1,15}$/);

export const spelling: fc.Arbitrary<Spelling> = fc.record({
  // Two bits of padding and one of case per group, drawn as one number each (cheaper than arrays).
  pad: fc.nat(0xffff).map((n) => Array.from({ length: 8 }, (_, i) => (n >> (2 * i)) & 3)),
  upper: fc.nat(0xff).map((n) => Array.from({ length: 8 }, (_, i) => ((n >> i) & 1) === 1)),
  run: fc.nat(8),
  dotted: fc.boolean(),
  zone: fc.option(zone, { nil: undefined }),
});

/** A second address near the first: the same, one bit flipped anywhere (both sides of every prefix edge), or unrelated. */
export function neighbour(groups: Groups): fc.Arbitrary<Groups> {
  return fc.oneof({ arbitrary: fc.constant(groups), weight: 1 }, { arbitrary: fc.nat(127).map((i) => flipBit(groups, i)), weight: 4 }, { arbitrary: address, weight: 1 });
}
