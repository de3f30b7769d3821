/**
 * Object names (src/keys.ts): a plain key names its object itself; a key UTF-8 would alter (a lone
 * surrogate) or that starts with '#' is named by its code units, so hostile keys never share an object
 * once their names reach workerd as UTF-8 (./store-contract-workerd.test.ts holds the store to it there).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { objectName } from '../src/keys.js';

/** Keys of a few code units each among those UTF-8 alters or that look like an encoded name: collisions come often. */
const hostile = fc.string({ unit: fc.constantFrom('a', '#', '0', '\ud800', '\udbff', '\udc00', '\ufffd', '\ud83d', '\ude00'), maxLength: 4 });
const utf8 = (name: string) => new TextDecoder().decode(new TextEncoder().encode(name));

it('names plain keys by themselves, and the rest by their code units', () => {
  expect(objectName('rk:', 'user-1')).toBe('rk:user-1');
  expect(objectName('rk:', '')).toBe('rk:');
  expect(objectName('rk:', '\ud800')).toBe('rk:#d800');
  expect(objectName('rk:', '#1')).toBe('rk:#00230031');
  expect(objectName('rk:', 'é😀')).toBe('rk:é😀');
});

it('gives distinct keys distinct names, still distinct as UTF-8 (hostile keys: lone surrogates, #, U+FFFD)', () => {
  fc.assert(
    fc.property(hostile, hostile, (a, b) => {
      fc.pre(a !== b);
      expect(utf8(objectName('rk:', a))).not.toBe(utf8(objectName('rk:', b)));
    }),
    { numRuns: 2000 },
  );
  expect(utf8('rk:\ud800')).toBe(utf8('rk:\udbff')); // what the naming avoids
});
