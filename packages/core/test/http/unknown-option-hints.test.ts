/**
 * An unknown adapter option is refused with what to write instead: a plain typo gets the option it is
 * most likely a typo of (at most two edits, one for a name of four letters or fewer, a swap of two
 * adjacent letters counting as one, case ignored), a far-off name gets no guess at all, and a name
 * another rate limiter uses keeps its translation, which for the limited answer's options (`message`,
 * `statusCode`, …) is a handler written in the adapter's framework, or in no framework's code when the
 * adapter names none. Each adapter pins its own wording (adapter-contract's refusalSuite; Fastify's
 * options tests).
 */
import { describe, expect, it } from 'vitest';
import { prepareRateLimit } from '../../src/adapter.js';
import { closestName, editDistance } from '../../src/http/options/closest.js';
import { OPTIONS } from '../../src/http/options/options.js';

const prepare = (options: object, extra: string[] = [], framework?: 'express' | 'fastify' | 'koa' | 'hono' | 'fetch') =>
  prepareRateLimit('rateLimit', options as never, extra, framework === undefined ? {} : { framework });

describe('editDistance', () => {
  it.each([
    ['limt', 'limit', 1],
    ['hedaers', 'headers', 1], // a swap is one edit (plain Levenshtein counts two)
    ['ab', 'ba', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['same', 'same', 0],
  ])('%s → %s is %i', (a, b, want) => {
    expect(editDistance(a, b)).toBe(want);
    expect(editDistance(b, a)).toBe(want);
  });

  it('stops at the cap', () => {
    expect(editDistance('frobnicate', 'limit', 3)).toBe(3);
  });
});

describe('closestName over the adapter options', () => {
  it.each([
    ['limt', 'limit'],
    ['windowMS', 'windowMs'],
    ['windowms', 'windowMs'],
    ['hedaers', 'headers'],
    ['skp', 'skip'],
    ['ky', 'key'],
    ['algoritm', 'algorithm'],
    ['refilPerSecond', 'refillPerSecond'],
    ['onDecison', 'onDecision'],
    ['proxyWarnings', 'proxyWarning'],
    ['capacty', 'capacity'],
  ])('suggests for %s: %s', (typed, want) => {
    expect(closestName(typed, OPTIONS)).toBe(want);
  });

  it.each(['frobnicate', 'lmt', 'ip', 'timeout', 'windowSeconds', 'rate'])('suggests nothing for the far-off %s', (typed) => {
    expect(closestName(typed, OPTIONS)).toBeUndefined();
  });
});

describe('prepareRateLimit refuses an unknown option saying what to write instead', () => {
  it('names the option a typo is closest to', () => {
    expect(() => prepare({ limt: 5 })).toThrowError(new TypeError('rateLimit: unknown option "limt": did you mean "limit"?'));
    expect(() => prepare({ algorithm: 'fixed-window', windowMS: 1000 })).toThrowError(new TypeError('rateLimit: unknown option "windowMS": did you mean "windowMs"?'));
  });

  it("counts the adapter's own options (extra) among those it may name", () => {
    expect(() => prepare({ handlr: () => undefined }, ['handler'])).toThrowError(new TypeError('rateLimit: unknown option "handlr": did you mean "handler"?'));
  });

  it('names nothing for a far-off name', () => {
    expect(() => prepare({ frobnicate: 1 })).toThrowError(new TypeError('rateLimit: unknown option "frobnicate"'));
  });

  it("gives another library's name its translation, not a typo's guess", () => {
    expect(() => prepare({ max: 5 })).toThrowError(/^rateLimit: unknown option "max": ratekeeper calls it "limit" \(/);
  });

  it('writes the handler for message and statusCode in the framework the adapter names', () => {
    expect(() => prepare({ message: 'x' }, [], 'koa')).toThrowError(
      new TypeError(
        `rateLimit: unknown option "message" of @ratekeeper/koa: write a handler instead: handler: (ctx) => { ctx.body = 'Too many requests' } (it runs with ctx.status already set to 429)`,
      ),
    );
    expect(() => prepare({ statusCode: 503 }, [], 'hono')).toThrowError(
      new TypeError(`rateLimit: unknown option "statusCode" of @ratekeeper/hono: write a handler that sets it: handler: (c) => c.text('…', 503) (the default is 429)`),
    );
  });

  it('names the handler without any framework’s code for an adapter that names none', () => {
    for (const name of ['message', 'statusCode', 'errorResponseBuilder', 'errorMessage']) {
      let text = '';
      try {
        prepare({ [name]: 1 });
      } catch (error) {
        text = (error as Error).message;
      }
      expect(text, name).toMatch(new RegExp(`^rateLimit: unknown option "${name}": write a handler .*the adapter's handler option answers a limited request`));
      expect(text, name).not.toMatch(/=>|res\.|ctx\.|reply\./);
    }
  });
});
