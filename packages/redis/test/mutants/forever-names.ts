/**
 * MUTANT — the policy-name registry as it was before issue 7: a plain Map from every name ever bound
 * to its signature, never released (+15 MB per 100,000 names). The name-memory test must see it keep
 * every name after the bindings are gone.
 */
export class ForeverNames {
  readonly #signatures = new Map<string, string>();

  get size(): number {
    return this.#signatures.size;
  }

  claim(name: string, signature: string, _holder: object): boolean {
    const bound = this.#signatures.get(name);
    if (bound !== undefined && bound !== signature) return false;
    this.#signatures.set(name, signature);
    return true;
  }
}
