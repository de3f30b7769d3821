/**
 * The estimate: what an operation costs at most, from its validated document and its variables,
 * before anything runs. Pure.
 *
 *   cost(field)   = n × (weight + cost(its selection set))      n = 1, or the list's size (rules.ts)
 *   cost(root)    = max(rootFieldCost, cost(field))             each top-level field is at least a call
 *   cost(set)     = Σ its fields + Σ fragments on its own or an abstract type + max over fragments on concrete types
 *
 * Every field written is priced where it is written: each alias is a field (`a: login … b: login` is
 * two logins), and a field written twice under one response key is priced twice though it runs once
 * (the refund to the actual cost gives the difference back). Fragments on different concrete types of
 * an abstract type exclude each other, so only the dearest counts; a fragment on the type itself or on
 * an abstract type may apply to any object and always counts. The result is therefore never below what
 * the operation can cost with list sizes within their caps. `__typename` is free; introspection's
 * `__schema` and `__type` cost nothing under `introspection: 'exempt'`. A fragment's price is computed
 * once per estimate however often it is spread (no fragment bomb), and sums grow by addition and
 * multiplication of safe integers, reaching Infinity rather than wrapping when a document is absurd.
 */
import { type FieldNode, type GraphQLNamedType, Kind, type SelectionSetNode } from 'graphql';
import type { Reading } from './document.js';
import type { CostRules } from './rules.js';

/** estimateOf answers the estimated cost of the operation read by `reading`. */
export function estimateOf(rules: CostRules, reading: Reading): number {
  return new Estimate(rules, reading).set(reading.operation.selectionSet, reading.root, true);
}

class Estimate {
  readonly #rules: CostRules;
  readonly #reading: Reading;
  readonly #fragments = new Map<string, number>();

  constructor(rules: CostRules, reading: Reading) {
    this.#rules = rules;
    this.#reading = reading;
  }

  set(selectionSet: SelectionSetNode, type: GraphQLNamedType, root: boolean): number {
    const reading = this.#reading;
    const abstract = this.#rules.abstract(type);
    let base = 0;
    let dearest = 0;
    const byType = abstract ? new Map<string, number>() : undefined;
    for (const selection of selectionSet.selections) {
      if (reading.skipped(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        base += this.field(selection.name.value, selection, type, root);
        continue;
      }
      const condition = selection.kind === Kind.INLINE_FRAGMENT ? selection.typeCondition?.name.value : reading.fragments.get(selection.name.value)?.typeCondition.name.value;
      const on = condition === undefined ? type : reading.schema.getType(condition);
      if (on === undefined) continue;
      const cost = selection.kind === Kind.INLINE_FRAGMENT ? this.set(selection.selectionSet, on, root) : this.spread(selection.name.value, on, root);
      if (byType === undefined || on === type || this.#rules.abstract(on)) base += cost;
      else {
        const sum = (byType.get(on.name) ?? 0) + cost;
        byType.set(on.name, sum);
        if (sum > dearest) dearest = sum;
      }
    }
    return base + dearest;
  }

  spread(name: string, on: GraphQLNamedType, root: boolean): number {
    const memo = `${root ? 'r' : ''}${name}`;
    const known = this.#fragments.get(memo);
    if (known !== undefined) return known;
    this.#fragments.set(memo, 0); // a cycle (refused by validation) adds nothing
    const fragment = this.#reading.fragments.get(name);
    const cost = fragment === undefined ? 0 : this.set(fragment.selectionSet, on, root);
    this.#fragments.set(memo, cost);
    return cost;
  }

  field(name: string, node: FieldNode, parent: GraphQLNamedType, root: boolean): number {
    if (name === '__typename') return 0;
    const rules = this.#rules;
    const introspection = name === '__schema' || name === '__type';
    if (introspection && rules.introspection === 'exempt') return 0;
    const definition = this.#reading.field(parent, name);
    if (definition === undefined) return 0;
    const price = rules.price(parent, definition);
    const child = node.selectionSet === undefined ? 0 : this.set(node.selectionSet, price.named, false);
    const n = price.list ? listSize(rules, this.#reading, node, price.slicing, price.assumedSize) : 1;
    const cost = n * (price.weight + child);
    return root ? Math.max(rules.rootFieldCost, cost) : cost;
  }
}

/** listSize is the first slicing argument set on the field, within [0, maxListSize], or the assumed size. */
export function listSize(rules: CostRules, reading: Reading, node: FieldNode, slicing: readonly string[], assumed: number): number {
  const args = node.arguments;
  if (args !== undefined && args.length > 0) {
    for (const name of slicing) {
      const arg = args.find((a) => a.name.value === name);
      if (arg === undefined) continue;
      const value = reading.value(arg.value);
      if (value === undefined || value === null) continue;
      return sizeOf(value, rules.maxListSize);
    }
  }
  return assumed;
}

/** sizeOf reads a list argument's value: a number within [0, max] (rounded up), anything else as max (execution will refuse it). */
export function sizeOf(value: unknown, max: number): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return max;
  return Math.min(max, Math.max(0, Math.ceil(value)));
}
