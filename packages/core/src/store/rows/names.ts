/**
 * PolicyNames: which parameters each policy name is bound with in one shared store (a Redis prefix, a
 * table, a file), so that binding a name twice with other parameters throws: the two limits would
 * decide one key's state by two policies. Limiters with one name and the same settings share it, in
 * this process and in every other one.
 *
 * A name is held only while a binding made with it is alive: each binding is counted, and a
 * FinalizationRegistry releases the count when the garbage collector takes it. So a process that
 * creates limiters per tenant, per route or per request does not keep a signature for every name it
 * ever bound: memory follows the live bindings, not the history.
 */
interface Entry {
  readonly signature: string;
  live: number;
}

export class PolicyNames {
  readonly #entries = new Map<string, Entry>();
  readonly #registry = new FinalizationRegistry<string>((name) => {
    const entry = this.#entries.get(name);
    if (entry !== undefined && --entry.live === 0) this.#entries.delete(name);
  });

  /** size is how many names are held (for tests). */
  get size(): number {
    return this.#entries.size;
  }

  /** claim records that `holder` binds `name` with `signature`; false, and nothing recorded, when the name is held with another. */
  claim(name: string, signature: string, holder: object): boolean {
    const entry = this.#entries.get(name);
    if (entry !== undefined && entry.signature !== signature) return false;
    if (entry === undefined) this.#entries.set(name, { signature, live: 1 });
    else entry.live++;
    this.#registry.register(holder, name);
    return true;
  }
}
