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
 * here from its description: one compression round per 32-bit word, three finalisation rounds, 64 bits
 * out per lane; its SipRound is checked against the reference implementation's published
 * HalfSipHash-2-4 vectors, and the inlined compression against that SipRound, in
 * test/key-digest-vectors.test.ts), each with its own 64-bit key drawn from
 * crypto.getRandomValues once per process, on first use. The words are the key's UTF-8 when it is
 * well formed (TextEncoder, on every runtime), else its UTF-16 code units (see digestKey). Why keyed and not a fixed hash: two keys with one digest share one bucket, so a client
 * who could compute collisions could drain another client's limit. Unkeyed fast hashes (FNV, Murmur,
 * xxHash) have collisions that hold for every seed; a keyed PRF does not, and the attacker never sees
 * a digest. Accidental collisions among n long keys have probability about n²/2^129. Not SHA-256 from
 * node:crypto, because core has no runtime dependency and runs on Bun, Deno and Workers, where
 * crypto.getRandomValues is the one primitive every runtime shares (Math.random seeds it only where
 * that is missing). Cost: one native UTF-8 encoding and one SipRound per 4 bytes: for an ASCII key about
 * what V8 pays to hash the string itself, once per call.
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

/** Code units per chunk: a chunk's UTF-8 (at most 3 bytes a unit) fits the scratch buffer. */
const CHUNK = 16_384;
/** Scratch: one length word, then the chunk's words. Fixed size, so a long key allocates nothing here. */
const scratch = new Int32Array(1 + (CHUNK * 3) / 4 + 1);
const payload = new Uint8Array(scratch.buffer, 4);
let encoder: { encodeInto(s: string, into: Uint8Array): { read: number; written: number } } | undefined;
let utf8Ready = false;

/** Lane state: [a0, a1, a2, a3, b0, b1, b2, b3], two HalfSipHash states side by side. */
const v = new Int32Array(8);

/**
 * digestKey is the keyed 128-bit digest of `key`, as a string of MAX_VERBATIM_KEY + 1 characters. The
 * key is read in chunks of at most 16,384 code units (never splitting a surrogate pair), each absorbed
 * as its length and then its contents in 32-bit words: a well-formed key as UTF-8 (one word per four
 * ASCII characters, encoded natively by TextEncoder), any other key as raw UTF-16 code units (one word
 * per two), since UTF-8 would replace its lone surrogates. The two encodings start from different lane
 * states, and the length words make each injective, so distinct keys give distinct inputs.
 */
export function digestKey(key: string): string {
  if (!seeded) seed();
  if (!utf8Ready) prepareUtf8();
  const utf8 = encoder !== undefined && (key as { isWellFormed?(): boolean }).isWellFormed?.() === true;
  const domain = utf8 ? 0xee : 0xef;
  v[0] = k0;
  v[1] = k1 ^ domain;
  v[2] = 0x6c796765 ^ k0;
  v[3] = 0x74656462 ^ k1;
  v[4] = k2;
  v[5] = k3 ^ domain;
  v[6] = 0x6c796765 ^ k2;
  v[7] = 0x74656462 ^ k3;
  const n = key.length;
  for (let pos = 0; pos < n; ) {
    let end = n - pos > CHUNK ? pos + CHUNK : n;
    if (end < n && (key.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--; // keep a surrogate pair whole
    compress(utf8 ? utf8Words(key, pos, end) : unitWords(key, pos, end));
    pos = end;
  }
  for (let at = 0; at < 8; at += 4) {
    v[at + 2] = (v[at + 2] as number) ^ 0xee;
    rounds(at, 3);
  }
  const x0 = (v[1] as number) ^ (v[3] as number);
  const y0 = (v[5] as number) ^ (v[7] as number);
  for (let at = 0; at < 8; at += 4) {
    v[at + 1] = (v[at + 1] as number) ^ 0xdd;
    rounds(at, 3);
  }
  const x1 = (v[1] as number) ^ (v[3] as number);
  const y1 = (v[5] as number) ^ (v[7] as number);
  // One 16-character string after the shared pad: a single rope of two parts, about 64 bytes a key.
  return (
    PAD +
    String.fromCharCode(
      x0 & 255,
      (x0 >>> 8) & 255,
      (x0 >>> 16) & 255,
      x0 >>> 24,
      x1 & 255,
      (x1 >>> 8) & 255,
      (x1 >>> 16) & 255,
      x1 >>> 24,
      y0 & 255,
      (y0 >>> 8) & 255,
      (y0 >>> 16) & 255,
      y0 >>> 24,
      y1 & 255,
      (y1 >>> 8) & 255,
      (y1 >>> 16) & 255,
      y1 >>> 24,
    )
  );
}

function prepareUtf8(): void {
  const E = (globalThis as { TextEncoder?: new () => NonNullable<typeof encoder> }).TextEncoder;
  if (E !== undefined) encoder = new E();
  utf8Ready = true;
}

/** utf8Words writes key[pos, end) as UTF-8 after its byte length; the number of words written. */
function utf8Words(key: string, pos: number, end: number): number {
  const { read, written } = (encoder as NonNullable<typeof encoder>).encodeInto(pos === 0 && end === key.length ? key : key.substring(pos, end), payload);
  // Unreachable (3 bytes a unit at most fit the scratch), but a short read would digest a prefix only.
  if (read !== end - pos) throw new Error('digestKey: a chunk did not fit its scratch buffer');
  const padded = (written + 3) & ~3;
  payload.fill(0, written, padded);
  scratch[0] = written;
  return 1 + (padded >> 2);
}

/** unitWords writes key[pos, end) as code units, two a word, after its unit count; the words written. */
function unitWords(key: string, pos: number, end: number): number {
  scratch[0] = end - pos;
  let w = 1;
  let i = pos;
  for (; i + 1 < end; i += 2) scratch[w++] = key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16);
  if (i < end) scratch[w++] = key.charCodeAt(i);
  return w;
}

/** compress absorbs scratch[0, count) into both lanes: one SipRound per word (HalfSipHash-1-3). */
function compress(count: number): void {
  let a0 = v[0] as number;
  let a1 = v[1] as number;
  let a2 = v[2] as number;
  let a3 = v[3] as number;
  let b0 = v[4] as number;
  let b1 = v[5] as number;
  let b2 = v[6] as number;
  let b3 = v[7] as number;
  for (let i = 0; i < count; i++) {
    const m = scratch[i] as number;
    a3 ^= m;
    b3 ^= m;
    a0 = (a0 + a1) | 0;
    b0 = (b0 + b1) | 0;
    a1 = ((a1 << 5) | (a1 >>> 27)) ^ a0;
    b1 = ((b1 << 5) | (b1 >>> 27)) ^ b0;
    a0 = (a0 << 16) | (a0 >>> 16);
    b0 = (b0 << 16) | (b0 >>> 16);
    a2 = (a2 + a3) | 0;
    b2 = (b2 + b3) | 0;
    a3 = ((a3 << 8) | (a3 >>> 24)) ^ a2;
    b3 = ((b3 << 8) | (b3 >>> 24)) ^ b2;
    a0 = (a0 + a3) | 0;
    b0 = (b0 + b3) | 0;
    a3 = ((a3 << 7) | (a3 >>> 25)) ^ a0;
    b3 = ((b3 << 7) | (b3 >>> 25)) ^ b0;
    a2 = (a2 + a1) | 0;
    b2 = (b2 + b1) | 0;
    a1 = ((a1 << 13) | (a1 >>> 19)) ^ a2;
    b1 = ((b1 << 13) | (b1 >>> 19)) ^ b2;
    a2 = (a2 << 16) | (a2 >>> 16);
    b2 = (b2 << 16) | (b2 >>> 16);
    a0 ^= m;
    b0 ^= m;
  }
  v[0] = a0;
  v[1] = a1;
  v[2] = a2;
  v[3] = a3;
  v[4] = b0;
  v[5] = b1;
  v[6] = b2;
  v[7] = b3;
}

/** rounds applies `count` SipRounds to the lane at v[at…at+3]. */
function rounds(at: number, count: number): void {
  let s0 = v[at] as number;
  let s1 = v[at + 1] as number;
  let s2 = v[at + 2] as number;
  let s3 = v[at + 3] as number;
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

/**
 * HALF_SIP hands the primitives to the test vectors (test/key-digest-vectors.test.ts): the two lanes
 * (v), the scratch words compress reads (scratch[0, count)), `rounds` (SipRounds on the lane at v[at])
 * and `compress` (one SipRound per word on both lanes). Not exported by the package.
 */
export const HALF_SIP = { lanes: v, words: scratch, rounds, compress } as const;
