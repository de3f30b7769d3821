/**
 * Held requests: an admitted request's claimed Settle (core's settle.ts), from the check until the
 * application's Response is handed over (`hand`), which ends the request's work. A limit covers the
 * work it admits, so a client that goes away (the Request's `signal` aborts) does not end it: its
 * handler still runs, and its lease stays taken until that handler's Response is handed over. Then
 * the outcome is that Response's status, `aborted: true`, settled at once (the runtime will not send
 * it; nothing would read or cancel its body). A handler that never hands one over after its client
 * left is settled as core's CLIENT_CLOSED (499) `abandonedMs` after the abort (core's `abandon`).
 * A Response handed over while the client is there is settled when its body is over (onFinished).
 *
 * The same request checked twice (two checks in a row, or one mounted twice) holds both Settles; one
 * hand-over settles both. A request whose Request has no signal is held unwatched until handed over.
 */
import { type Decision } from '@ratekeeper/core';
import { abandon, type Claim, type Finished, type Settle } from '@ratekeeper/core/adapter';
import { onFinished } from './on-finished.js';

interface Holding {
  readonly settles: Settle[];
  readonly signal: AbortSignal | undefined;
  readonly left: () => void;
  /** Set once the client left: settles every Settle with the handler's answer, or CLIENT_CLOSED after the bound. */
  over: ((answer: Finished) => void) | undefined;
}

export class Held<Req extends object> {
  readonly #claim: Claim<Req>;
  readonly #requestOf: (request: Req) => Request;
  readonly #abandonedMs: number;
  readonly #holdings = new WeakMap<Req, Holding>();

  constructor(claim: Claim<Req>, requestOf: (request: Req) => Request, abandonedMs: number) {
    this.#claim = claim;
    this.#requestOf = requestOf;
    this.#abandonedMs = abandonedMs;
  }

  /** hold claims an admitted request's Settle and watches its signal until the Response is handed over. */
  hold(request: Req, decision: Decision): void {
    const settle = this.#claim(request, decision);
    if (settle === undefined) return;
    const prior = this.#holdings.get(request);
    if (prior !== undefined) return void prior.settles.push(settle);
    const signal = this.#requestOf(request).signal ?? undefined;
    const settles = [settle];
    const holding: Holding = {
      settles,
      signal,
      over: undefined,
      left: () => void (holding.over = abandon((f) => each(settles, f), this.#abandonedMs)),
    };
    this.#holdings.set(request, holding);
    // Gone while the store decided: an aborted signal fires no more 'abort', so the wait starts now.
    if (signal?.aborted === true) holding.left();
    else signal?.addEventListener('abort', holding.left, { once: true });
  }

  /**
   * hand takes the application's Response for `request`: the Response to send, a copy whose end
   * settles the charge when the client is there; the Response itself, settled now, when it left.
   */
  hand(request: Req, response: Response): Response {
    const holding = this.#holdings.get(request);
    if (holding === undefined) return response;
    this.#holdings.delete(request);
    holding.signal?.removeEventListener('abort', holding.left);
    if (holding.over === undefined) return onFinished(response, (f) => each(holding.settles, f), this.#requestOf(request));
    holding.over({ status: response.status, aborted: true, contentLength: contentLengthOf(response.headers) });
    return response;
  }
}

function each(settles: readonly Settle[], finished: Finished): void {
  for (const settle of settles) settle(finished);
}

function contentLengthOf(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  const length = value === null ? Number.NaN : Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
