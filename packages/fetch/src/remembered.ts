/**
 * Remembered keeps one limiter's admitted decisions against their requests until the application's
 * Response is built (`headers`, `decision`).
 *
 * A decision is kept on the request itself, under a symbol of this limiter (two limiters on one
 * request keep two), rather than in a WeakMap: on V8 a WeakMap entry per request pays ephemeron write
 * barriers and their scavenging, 0.25–0.48 µs of the fetch adapter's allowed request on Node
 * (benchmarks/NOTEBOOK.md, "fetch on Node: the decision kept on the request"), where a property under a
 * symbol is one cached store. A request that
 * takes no property (frozen, sealed, or a Proxy that refuses) goes into a WeakMap instead, made the
 * first time one does. The symbol is not exported: nothing outside this limiter reads it.
 */
import type { Decision } from '@ratekeeper/core';

export class Remembered<Req extends object> {
  readonly #slot = Symbol('ratekeeper.decision');
  #refused: WeakMap<Req, Decision> | undefined;

  set(request: Req, decision: Decision): void {
    try {
      (request as Record<symbol, Decision>)[this.#slot] = decision;
    } catch {
      // Strict mode throws on a store the object refuses.
      this.#refused ??= new WeakMap();
      this.#refused.set(request, decision);
    }
  }

  get(request: Req): Decision | undefined {
    return (request as Record<symbol, Decision | undefined>)[this.#slot] ?? this.#refused?.get(request);
  }
}
