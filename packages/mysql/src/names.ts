/**
 * PolicyNames: which parameters each policy name is bound with in this process. A policy name is a
 * namespace in the table (limiters of one name share their rows, in every process), so binding one
 * name twice with other parameters is refused at construction: the two would read each other's state
 * as their own. A name is remembered only while a binding of it is alive (a FinalizationRegistry
 * forgets it), so creating limiters per tenant does not grow memory per name ever used.
 */
export class PolicyNames {
  readonly #bound = new Map<string, { readonly signature: string; live: number }>();
  readonly #registry = new FinalizationRegistry<string>((name) => {
    const entry = this.#bound.get(name);
    if (entry !== undefined && --entry.live === 0) this.#bound.delete(name);
  });

  /** claim records `binding` under `name` with `signature`; false when the name is bound with another. */
  claim(name: string, signature: string, binding: object): boolean {
    const entry = this.#bound.get(name);
    if (entry !== undefined && entry.signature !== signature) return false;
    if (entry === undefined) this.#bound.set(name, { signature, live: 1 });
    else entry.live++;
    this.#registry.register(binding, name);
    return true;
  }
}
