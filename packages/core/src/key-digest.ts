/**
 * Stored keys: what a MemoryStore table keeps for a caller's key, so that memory per key is bounded in
 * bytes and lookup stays O(1) whatever a client puts in the key.
 *
 * A key of at most MAX_VERBATIM_KEY (64) UTF-16 code units is kept verbatim: IP addresses, user ids and
 * API keys pay one length comparison and nothing else. A longer key is replaced by a 128-bit digest of
 * all its code units, stored as a string of exactly MAX_VERBATIM_KEY + 1 characters: longer than any
 * verbatim key, so a digest can never equal one, and short, so the table never holds a client's
 * 16,000 bytes, nor a string longer than the 16,383 characters past which V8 hashes a string by its
 * length alone (every such key would collide in the Map and fill it in quadratic time).
 *
 * The digest is keyed: two lanes of HalfSipHash-1-3 (Aumasson & Bernstein's 32-bit SipHash, written
 * here from its description; one compression round per 32-bit word, three finalisation rounds, 64
 * bits out per lane), each with its own 64-bit key drawn from crypto.getRandomValues once per process,
 * on first use. Why keyed and not a fixed hash: two keys with one digest share one bucket, so a client
 * who could compute collisions could drain another client's limit. Unkeyed fast hashes (FNV, Murmur,
 * xxHash) have collisions that hold for every seed; a keyed PRF does not, and the attacker never sees
 * a digest. Accidental collisions among n long keys have probability about n²/2^129. Not SHA-256 from
 * node:crypto, because core has no runtime dependency and runs on Bun, Deno and Workers, where
 * crypto.getRandomValues is the one primitive every runtime shares (Math.random seeds it only where
 * that is missing). Cost: about one pass over the key, near what V8 pays to hash the string itself.
 */

/** MAX_VERBATIM_KEY is the longest key (in UTF-16 code units) a memory table keeps verbatim. */
export const MAX_VERBATIM_KEY = 64;

/** The digest is these 16 bytes (one character each) after a fixed pad: MAX_VERBATIM_KEY + 1 characters. */
const PAD = '#'.repeat(MAX_VERBATIM_KEY + 1 - 16);

let k0 = 0;
let k1 = 0;
let k2 = 0;
let k3 = 0;
let seeded = false;

function seed(): void {
  const words = new Uint32Array(4);
  const c = (globalThis as { crypto?: { getRandomValues?(a: Uint32Array): Uint32Array } }).crypto;
  if (c?.getRandomValues !== undefined) c.getRandomValues(words);
  else for (let i = 0; i < 4; i++) words[i] = Math.floor(Math.random() * 2 ** 32);
  [k0, k1, k2, k3] = words as unknown as [number, number, number, number];
  seeded = true;
}

/** storedKey is the key a memory table keeps for `key`: itself when short, its digest when long. */
export function storedKey(key: string): string {
  return key.length > MAX_VERBATIM_KEY ? digestKey(key) : key;
}

/** Lane state: [a0, a1, a2, a3, b0, b1, b2, b3], two HalfSipHash states side by side. */
const v = new Int32Array(8);

/** digestKey is the keyed 128-bit digest of every UTF-16 code unit of `key`, as a fixed-length string. */
export function digestKey(key: string): string {
  if (!seeded) seed();
  let a0 = k0 | 0;
  let a1 = (k1 ^ 0xee) | 0;
  let a2 = (0x6c796765 ^ k0) | 0;
  let a3 = (0x74656462 ^ k1) | 0;
  let b0 = k2 | 0;
  let b1 = (k3 ^ 0xee) | 0;
  let b2 = (0x6c796765 ^ k2) | 0;
  let b3 = (0x74656462 ^ k3) | 0;
  const n = key.length;
  const end = n & ~1;
  for (let i = 0; i < end; i += 2) {
    const m = key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16);
    a3 ^= m;
    b3 ^= m;
    a0 = (a0 + a1) | 0; b0 = (b0 + b1) | 0;
    a1 = ((a1 << 5) | (a1 >>> 27)) ^ a0; b1 = ((b1 << 5) | (b1 >>> 27)) ^ b0;
    a0 = (a0 << 16) | (a0 >>> 16); b0 = (b0 << 16) | (b0 >>> 16);
    a2 = (a2 + a3) | 0; b2 = (b2 + b3) | 0;
    a3 = ((a3 << 8) | (a3 >>> 24)) ^ a2; b3 = ((b3 << 8) | (b3 >>> 24)) ^ b2;
    a0 = (a0 + a3) | 0; b0 = (b0 + b3) | 0;
    a3 = ((a3 << 7) | (a3 >>> 25)) ^ a0; b3 = ((b3 << 7) | (b3 >>> 25)) ^ b0;
    a2 = (a2 + a1) | 0; b2 = (b2 + b1) | 0;
    a1 = ((a1 << 13) | (a1 >>> 19)) ^ a2; b1 = ((b1 << 13) | (b1 >>> 19)) ^ b2;
    a2 = (a2 << 16) | (a2 >>> 16); b2 = (b2 << 16) | (b2 >>> 16);
    a0 ^= m;
    b0 ^= m;
  }
  v[0] = a0; v[1] = a1; v[2] = a2; v[3] = a3;
  v[4] = b0; v[5] = b1; v[6] = b2; v[7] = b3;
  // The last word: the odd code unit, if any, and the length's low 15 bits with its parity on top, so
  // that the word sequence (and so the digest's input) determines the key.
  const last = (n & 1 ? key.charCodeAt(n - 1) : 0) | ((n & 0x7fff) << 16) | (n & 1) << 31;
  absorb(0, last, 1);
  absorb(4, last, 1);
  v[2] = v[2]! ^ 0xee;
  v[6] = v[6]! ^ 0xee;
  rounds(0, 3);
  rounds(4, 3);
  const x0 = v[1]! ^ v[3]!;
  const y0 = v[5]! ^ v[7]!;
  v[1] = v[1]! ^ 0xdd;
  v[5] = v[5]! ^ 0xdd;
  rounds(0, 3);
  rounds(4, 3);
  const x1 = v[1]! ^ v[3]!;
  const y1 = v[5]! ^ v[7]!;
  return PAD + bytes(x0) + bytes(x1) + bytes(y0) + bytes(y1);
}

function absorb(at: number, m: number, count: number): void {
  v[at + 3] = v[at + 3]! ^ m;
  rounds(at, count);
  v[at] = v[at]! ^ m;
}

/** rounds applies `count` SipRounds to the lane at v[at…at+3]. */
function rounds(at: number, count: number): void {
  let s0 = v[at]!;
  let s1 = v[at + 1]!;
  let s2 = v[at + 2]!;
  let s3 = v[at + 3]!;
  for (let r = 0; r < count; r++) {
    s0 = (s0 + s1) | 0;
    s1 = ((s1 << 5) | (s1 >>> 27)) ^ s0;
    s0 = (s0 << 16) | (s0 >>> 16);
    s2 = (s2 + s3) | 0;
    s3 = ((s3 << 8) | (s3 >>> 24)) ^ s2;
    s0 = (s0 + s3) | 0;
    s3 = ((s3 << 7) | (s3 >>> 25)) ^ s0;
    s2 = (s2 + s1) | 0;
    s1 = ((s1 << 13) | (s1 >>> 19)) ^ s2;
    s2 = (s2 << 16) | (s2 >>> 16);
  }
  v[at] = s0;
  v[at + 1] = s1;
  v[at + 2] = s2;
  v[at + 3] = s3;
}

/** bytes renders a 32-bit word as four one-byte characters. */
function bytes(w: number): string {
  return String.fromCharCode(w & 255, (w >>> 8) & 255, (w >>> 16) & 255, w >>> 24);
}
