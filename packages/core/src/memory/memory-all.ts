/**
 * All-or-nothing steps over several MemoryBindings (a composite on the memory store): every binding
 * evaluates first, and only if all allow does any of them record. One synchronous pass, so no other
 * call can interleave between the check and the commit.
 */
import type { Decision } from '../decision.js';
import { storedKey } from './key-digest.js';
import type { MemoryBinding } from './memory-binding.js';

/**
 * decideAll runs one all-or-nothing step over several memory bindings: every binding evaluates, and
 * only if all allow (and `commit`) does any of them record. Members that allowed inside a denied
 * composite report what they hold as it stands (MemoryBinding.held), not as if the request were taken.
 */
export function decideAll(bindings: readonly MemoryBinding[], key: string, now: number, cost: number, commit: boolean): Decision[] {
  key = storedKey(key); // once for every binding: they all keep the same stored key
  const allowed = evaluateAll(bindings, key, now, cost);
  const decisions = bindings.map((binding) => binding.decision());
  if (allowed) {
    if (commit) for (const binding of bindings) binding.commit(key, now);
    return decisions;
  }
  return decisions.map((d, i) => (d.allowed ? (bindings[i] as MemoryBinding).held(key, now) : d));
}

/** allowAll is decideAll answering only the verdict; it allocates nothing after a key's first request. */
export function allowAll(bindings: readonly MemoryBinding[], key: string, now: number, cost: number): boolean {
  key = storedKey(key);
  for (let i = 0; i < bindings.length; i++) if (!(bindings[i] as MemoryBinding).evaluate(key, now, cost)) return false;
  for (let i = 0; i < bindings.length; i++) (bindings[i] as MemoryBinding).commit(key, now);
  return true;
}

function evaluateAll(bindings: readonly MemoryBinding[], key: string, now: number, cost: number): boolean {
  let allowed = true;
  for (let i = 0; i < bindings.length; i++) if (!(bindings[i] as MemoryBinding).evaluate(key, now, cost)) allowed = false;
  return allowed;
}
