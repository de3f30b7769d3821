// Keys for every section: distinct IPv4-like strings ("203.0.113.7"), made up front so that no
// measurement pays for building them. Key i is a bijective scramble of the 32-bit number i, so the
// keys are distinct, spread over the whole address space (no long common prefixes, unlike a counter)
// and the same in every run and every child process.
//
// Each key is flattened and hashed once before it is returned: V8 builds a string longer than 12
// characters by concatenation as a rope (ConsString) and flattens it, allocating, the first time it is
// hashed. Without this pass the first contender to see a key would pay for that, in time and in heap.

/** ipv4Key is the i-th key (0 ≤ i < 2³²). */
export function ipv4Key(i) {
  let x = Math.imul(i ^ 0x5bd1e995, 0x9e3779b1) >>> 0; // odd multiplier: a bijection of uint32
  x = (x ^ (x >>> 15)) >>> 0; // xorshift: also a bijection
  return `${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`;
}

/** makeKeys returns `count` distinct, flat, pre-hashed keys. */
export function makeKeys(count) {
  const keys = new Array(count);
  for (let i = 0; i < count; i++) keys[i] = ipv4Key(i);
  const seen = new Set(keys); // hashing flattens each rope in place and caches its hash
  if (seen.size !== count) throw new Error(`makeKeys: ${count - seen.size} duplicate keys`);
  return keys;
}
