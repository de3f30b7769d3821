/**
 * The refusals a user of another rate limiter meets first say what to write instead, in this
 * adapter's own terms: express-rate-limit's `message` and `statusCode` are refused with a `handler`
 * written for this framework (the wording each adapter passes here, pinned word for word), a plain typo
 * gets the option it is closest to (`unknown option "limt": did you mean "limit"?`, the adapter's own
 * `handler` among the candidates), and a far-off name gets no guess.
 */
import { expect, it } from 'vitest';

/** HandlerWording is what an adapter's refusals of `message` and `statusCode` say after `unknown option "…" of <adapter>: `. */
export interface HandlerWording {
  /** The adapter's package, which a refusal of another rate limiter's option names: `@ratekeeper/express`. */
  readonly adapter: string;
  readonly message: string;
  readonly statusCode: string;
}

/** refusalSuite runs inside the caller's describe; `rateLimit` is the adapter's, typed loosely. */
export function refusalSuite(rateLimit: (options?: never) => unknown, wording: HandlerWording): void {
  const create = (options: object) => () => (rateLimit as (options: unknown) => unknown)(options);
  it("refuses message and statusCode with a handler written in this adapter's terms", () => {
    expect(create({ message: 'Too many requests' })).toThrowError(new TypeError(`rateLimit: unknown option "message" of ${wording.adapter}: ${wording.message}`));
    expect(create({ statusCode: 503 })).toThrowError(new TypeError(`rateLimit: unknown option "statusCode" of ${wording.adapter}: ${wording.statusCode}`));
  });

  it.each([
    [{ limt: 5 }, 'rateLimit: unknown option "limt": did you mean "limit"?'],
    [{ algorithm: 'fixed-window', limit: 5, windowMS: 1000 }, 'rateLimit: unknown option "windowMS": did you mean "windowMs"?'],
    [{ hedaers: false }, 'rateLimit: unknown option "hedaers": did you mean "headers"?'],
    [{ handlr: () => undefined }, 'rateLimit: unknown option "handlr": did you mean "handler"?'],
    [{ frobnicate: true }, 'rateLimit: unknown option "frobnicate"'],
  ])('refuses %j naming the option it is a typo of, if any', (options, message) => {
    expect(create(options)).toThrowError(new TypeError(message));
  });
}
