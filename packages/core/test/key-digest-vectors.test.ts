/**
 * The memory store's key digest (src/memory/key-digest.ts) is HalfSipHash-1-3, written from its
 * description. Its primitives are checked here: the SipRound against the published HalfSipHash-2-4
 * vectors of the reference implementation (Aumasson's SipHash repository, vectors.h: vectors_hsip32 and
 * vectors_hsip64, key 00 01 … 07, messages 00 01 … of length 0 to 63), built from the module's own
 * `rounds`; and the compression the digest inlines (one SipRound per word, both lanes) against that
 * checked SipRound, on random states and words. A wrong rotation, a swapped half or a missed xor fails
 * the first; a compression that drifts from the SipRound fails the second.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HALF_SIP } from '../src/memory/key-digest.js';

/** vectors_hsip32, each 4-byte output read as a little-endian word. */
const HSIP32 = [
  0x5b9f35a9, 0xb85a4727, 0x03a662fa, 0x04e7fe8a, 0x89466e2a, 0x69b6fac5, 0x23fc6358, 0xc563cf8b, 0x8f84b8d0, 0x79e706f8, 0x3479b094, 0x50300808, 0x2f87f057, 0xff63e677,
  0x7cf8ffd6, 0x972bfe74, 0x84acb5d9, 0x5b6474c4, 0x9b8d5b46, 0x87e3ef7b, 0x45104de3, 0xb3623f61, 0xfe67f370, 0xbdb8ade6, 0x630c4027, 0x75787826, 0x5f7b564f, 0x69e6b03a,
  0x004064b0, 0xb40f67ff, 0x8b339e50, 0x1a9f585d, 0x1221e7fe, 0x59327533, 0x8c4f436a, 0x29b728fe, 0xecc65ce7, 0x548d7e69, 0x0f8b6863, 0xb4620b65, 0x4018bcb6, 0x0545075d,
  0x2efd4224, 0x3a86b77b, 0x48d50577, 0xb10852d7, 0xc899d4b6, 0x2e209208, 0xe32ce169, 0xe580b58d, 0xc6649736, 0x04026e01, 0xd4f3853b, 0xbe66dbfe, 0x3a2a691e, 0xc08489c6,
  0x40b9c5a5, 0x8ce8e99b, 0x4081bc7d, 0xc58e077c, 0x736ce7d4, 0xb9cb8f42, 0x7a9983bd, 0x744aea59,
];

/** vectors_hsip64, each 8-byte output read as a little-endian 64-bit number. */
const HSIP64 = [
  0xc83cb8b9591f8d21n,
  0x157338f8122455ben,
  0x57eb507cef394f06n,
  0x790606f7451a0fcen,
  0xa12ee55b178ae7d5n,
  0x80b53d2f3f7c9dcbn,
  0x25bca28a35913ecen,
  0x84c67bb0282720ffn,
  0x8c85e4bc20e8feedn,
  0x07838813cccc515bn,
  0xeef2a6069f46b095n,
  0x48cddd94393326aen,
  0x99c7f5ae9f1fc77bn,
  0x44370c5ad752235an,
  0x58e6e8ea70a8b13bn,
  0x02c9814ecb0b7d21n,
  0xb5f37b5fd2aa3673n,
  0x6a4f4c1c64c0ad37n,
  0xf9423e9a2bdbb2c9n,
  0x3c36ab2080e410f9n,
  0xdba7ee6f0a2bf51bn,
  0xefb3e869c21d7400n,
  0xef76a71bfa0301e2n,
  0x731d684be510224cn,
  0xf1a63fae45107470n,
  0x384071393740860cn,
  0xf0232911d89e890dn,
  0xb8e11eb8faf56b22n,
  0xb516001efb5f922dn,
  0xf110ee2cd5581936n,
  0x9d17984886af1a29n,
  0x7c11345c157f3c86n,
  0x6c6211d8469d7028n,
  0x9cf8281d68778424n,
  0x30988f52d7e42483n,
  0xd86bea3ae1d4eff9n,
  0xdc7642ec407ad686n,
  0x357ea9ccec92623fn,
  0x0921d424e72ed9cbn,
  0x793d408d80f68d36n,
  0x4caec8671cc8385bn,
  0xb3ac39d48971ab95n,
  0x24703225c0521aa9n,
  0xeaac2895c687005bn,
  0x5ab1dc27adf3301en,
  0xd44e32909a5c7f69n,
  0x38dc5755990f5c49n,
  0x4df9293c2a202794n,
  0x3e3ea94bc0a8eaa9n,
  0x1812017d73c1a4een,
  0x495af6d88f562d91n,
  0x975cffb096959156n,
  0xe150f598795a4402n,
  0xb21f1de76c46ec86n,
  0xbce389d2e7699535n,
  0x967cbb62ca051b87n,
  0x1d5ff142f992a4a1n,
  0x6e5b09f67f26ec12n,
  0x9dd831b2a15e1b5dn,
  0x54ee923f45b4cfd8n,
  0x60e426bf902876d6n,
  0xf35cedb7a4633531n,
  0x9366d472b53a0bf9n,
  0x876032bf713ca62en,
];

const { lanes, words, rounds, compress } = HALF_SIP;

/**
 * halfSipHash is the reference construction (c compression and d finalisation SipRounds, 32 or 64
 * bits out), run on lane 0 of the module's lanes with the module's `rounds`.
 */
function halfSipHash(c: number, d: number, key: Uint8Array, message: Uint8Array, outBytes: 4 | 8): bigint {
  const word = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24) | 0;
  const k0 = word(key, 0);
  const k1 = word(key, 4);
  lanes[0] = k0;
  lanes[1] = outBytes === 8 ? k1 ^ 0xee : k1;
  lanes[2] = 0x6c796765 ^ k0;
  lanes[3] = 0x74656462 ^ k1;
  const absorb = (m: number) => {
    lanes[3] = lanes[3]! ^ m;
    rounds(0, c);
    lanes[0] = lanes[0]! ^ m;
  };
  const whole = message.length & ~3;
  for (let at = 0; at < whole; at += 4) absorb(word(message, at));
  let last = (message.length & 255) << 24;
  for (let i = whole; i < message.length; i++) last |= message[i]! << (8 * (i - whole));
  absorb(last | 0);
  lanes[2] = lanes[2]! ^ (outBytes === 8 ? 0xee : 0xff);
  rounds(0, d);
  const low = BigInt((lanes[1]! ^ lanes[3]!) >>> 0);
  if (outBytes === 4) return low;
  lanes[1] = lanes[1]! ^ 0xdd;
  rounds(0, d);
  return low | (BigInt((lanes[1]! ^ lanes[3]!) >>> 0) << 32n);
}

const KEY = Uint8Array.from({ length: 8 }, (_, i) => i);
const MESSAGE = Uint8Array.from({ length: 64 }, (_, i) => i);

describe('HalfSipHash primitives of the key digest', () => {
  it('reproduce the 64 published HalfSipHash-2-4 vectors with a 32-bit output', () => {
    const got = HSIP32.map((_, n) => halfSipHash(2, 4, KEY, MESSAGE.subarray(0, n), 4));
    expect(got).toEqual(HSIP32.map(BigInt));
  });

  it('reproduce the 64 published HalfSipHash-2-4 vectors with a 64-bit output', () => {
    const got = HSIP64.map((_, n) => halfSipHash(2, 4, KEY, MESSAGE.subarray(0, n), 8));
    expect(got).toEqual(HSIP64);
  });

  it("compress (the digest's inlined round per word, both lanes) equals the checked SipRound, word by word", () => {
    const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(fc.array(int32, { minLength: 8, maxLength: 8 }), fc.array(int32, { minLength: 0, maxLength: 40 }), (state, message) => {
        lanes.set(state);
        for (const m of message) {
          for (const at of [0, 4]) {
            lanes[at + 3] = lanes[at + 3]! ^ m;
            rounds(at, 1);
            lanes[at] = lanes[at]! ^ m;
          }
        }
        const expected = Array.from(lanes);
        lanes.set(state);
        words.set(message);
        compress(message.length);
        expect(Array.from(lanes)).toEqual(expected);
      }),
    );
  });
});
