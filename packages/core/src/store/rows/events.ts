/**
 * FailureEvents: a row store's 'failure' event, with the listener methods of Node's EventEmitter that
 * applications and Node's own helpers use (`on`, `once`, `off`, `addListener`, `removeListener`,
 * `removeAllListeners`, `listenerCount`), written here because core runs where node:events does not
 * (Workers). Only 'failure' is ever emitted (never 'error', which would crash a process without a
 * listener); a listener for any other name is kept and never called, so `events.once(store, 'failure')`
 * works. A listener that throws is the caller's bug: it surfaces as an uncaught exception on a later
 * turn, never in the decision that reported the failure, and the other listeners still hear it.
 */
import type { FailureInfo } from '../remote/failure.js';

/** FailureEvents is over the report a store gives its listeners (core's FailureInfo, or a store's own with reasons of its own). */
export class FailureEvents<Info = FailureInfo> {
  readonly #listeners = new Map<string | symbol, { readonly listener: (info: Info) => void; readonly once: boolean }[]>();

  on(event: string | symbol, listener: (info: Info) => void): this {
    return this.#add(event, listener, false);
  }

  addListener(event: string | symbol, listener: (info: Info) => void): this {
    return this.#add(event, listener, false);
  }

  once(event: string | symbol, listener: (info: Info) => void): this {
    return this.#add(event, listener, true);
  }

  off(event: string | symbol, listener: (info: Info) => void): this {
    return this.removeListener(event, listener);
  }

  removeListener(event: string | symbol, listener: (info: Info) => void): this {
    const held = this.#listeners.get(event);
    const at = held?.findIndex((entry) => entry.listener === listener) ?? -1;
    if (at >= 0) held?.splice(at, 1);
    return this;
  }

  removeAllListeners(event?: string | symbol): this {
    if (event === undefined) this.#listeners.clear();
    else this.#listeners.delete(event);
    return this;
  }

  listenerCount(event: string | symbol): number {
    return this.#listeners.get(event)?.length ?? 0;
  }

  /** @internal emitFailure tells the 'failure' listeners (see above). */
  emitFailure(info: Info): void {
    const held = this.#listeners.get('failure');
    if (held === undefined) return;
    for (const entry of [...held]) {
      if (entry.once) this.removeListener('failure', entry.listener);
      try {
        entry.listener(info);
      } catch (error) {
        setTimeout(() => {
          throw error;
        }, 0);
      }
    }
  }

  #add(event: string | symbol, listener: (info: Info) => void, once: boolean): this {
    if (typeof listener !== 'function') throw new TypeError(`${this.constructor.name}: a listener must be a function, got ${typeof listener}`);
    const held = this.#listeners.get(event);
    if (held === undefined) this.#listeners.set(event, [{ listener, once }]);
    else held.push({ listener, once });
    return this;
  }
}
