/**
 * The actual cost: what an operation cost once it ran, read from its response's `data` with the same
 * weights as the estimate. A field costs its weight for each value it produced (each object of a list
 * actually returned, each leaf), plus what its object's own fields cost; a field that produced null, or
 * is absent (an error nulled it or its parent), costs nothing below the root. Each top-level field
 * written still costs at least `rootFieldCost`, resolved or failed: its resolver ran, and a thousand
 * failing `login` aliases must cost a thousand. Fields merged under one response key are read once,
 * with their selections merged, as execution runs them; an object's `__typename`, when the operation
 * asked for it, picks which fragments of an abstract type apply (otherwise all of them are read,
 * each field by the type it was written on). Pure.
 *
 * Whoever charges caps this at the estimate: a list longer than its priced size costs no more than
 * was reserved for it (see the README's "Estimate and actual").
 */
import { type FieldNode, type GraphQLAbstractType, type GraphQLNamedType, type GraphQLObjectType, Kind, type SelectionSetNode } from 'graphql';
import type { Reading } from './document.js';
import type { CostRules, FieldPrice } from './rules.js';

/** Written: the field nodes under one response key, and the type they were written on. */
interface Written {
  readonly nodes: FieldNode[];
  readonly on: GraphQLNamedType;
}

/** actualOf answers the actual cost of the operation read by `reading`, given its response's data. */
export function actualOf(rules: CostRules, reading: Reading, data: unknown): number {
  const fields = collect(rules, reading, [reading.operation.selectionSet], reading.root, undefined);
  const object = isObject(data) ? data : undefined;
  let total = 0;
  for (const [key, written] of fields) {
    const name = (written.nodes[0] as FieldNode).name.value;
    if (name === '__typename') continue;
    if ((name === '__schema' || name === '__type') && rules.introspection === 'exempt') continue;
    const cost = object !== undefined && Object.hasOwn(object, key) ? fieldCost(rules, reading, written, object[key]) : 0;
    total += Math.max(rules.rootFieldCost, cost);
  }
  return total;
}

function fieldCost(rules: CostRules, reading: Reading, written: Written, value: unknown): number {
  const name = (written.nodes[0] as FieldNode).name.value;
  if (name === '__typename') return 0;
  const definition = reading.field(written.on, name);
  if (definition === undefined) return 0;
  return valueCost(rules, reading, written, rules.price(written.on, definition), value);
}

function valueCost(rules: CostRules, reading: Reading, written: Written, price: FieldPrice, value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (price.leaf) return Array.isArray(value) ? leaves(value, price.weight) : price.weight;
  // The selections of the objects below, grouped once for all the items of a list (per concrete type).
  const sets: SelectionSetNode[] = [];
  for (const node of written.nodes) if (node.selectionSet !== undefined) sets.push(node.selectionSet);
  const grouped = new Map<GraphQLNamedType | undefined, Map<string, Written>>();
  return objects(rules, reading, sets, price, grouped, value);
}

function leaves(value: readonly unknown[], weight: number): number {
  let sum = 0;
  for (const item of value) sum += item === null || item === undefined ? 0 : Array.isArray(item) ? leaves(item, weight) : weight;
  return sum;
}

type Grouped = Map<GraphQLNamedType | undefined, Map<string, Written>>;

function objects(rules: CostRules, reading: Reading, sets: readonly SelectionSetNode[], price: FieldPrice, grouped: Grouped, value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (Array.isArray(value)) {
    let sum = 0;
    for (const item of value) sum += objects(rules, reading, sets, price, grouped, item);
    return sum;
  }
  if (!isObject(value)) return price.weight;
  const typename = value['__typename'];
  const concrete = price.abstract && typeof typename === 'string' ? reading.schema.getType(typename) : undefined;
  let fields = grouped.get(concrete);
  if (fields === undefined) grouped.set(concrete, (fields = collect(rules, reading, sets, price.named, concrete)));
  let sum = price.weight;
  for (const [key, w] of fields) {
    if (Object.hasOwn(value, key)) sum += fieldCost(rules, reading, w, value[key]);
  }
  return sum;
}

/**
 * collect groups the fields of `sets` by response key, as execution does: fragments whose condition
 * cannot hold for `concrete` (when known) are left out, skipped selections too.
 */
function collect(rules: CostRules, reading: Reading, sets: readonly SelectionSetNode[], type: GraphQLNamedType, concrete: GraphQLNamedType | undefined): Map<string, Written> {
  const fields = new Map<string, Written>();
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode, on: GraphQLNamedType) => {
    for (const selection of set.selections) {
      if (reading.skipped(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const known = fields.get(key);
        if (known === undefined) fields.set(key, { nodes: [selection], on });
        else known.nodes.push(selection);
        continue;
      }
      let condition: string | undefined;
      let inner: SelectionSetNode | undefined;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        condition = selection.typeCondition?.name.value;
        inner = selection.selectionSet;
      } else {
        if (seen.has(selection.name.value)) continue;
        seen.add(selection.name.value);
        const fragment = reading.fragments.get(selection.name.value);
        condition = fragment?.typeCondition.name.value;
        inner = fragment?.selectionSet;
      }
      const next = condition === undefined ? on : reading.schema.getType(condition);
      if (inner === undefined || next === undefined || !applies(rules, reading, next, concrete)) continue;
      walk(inner, concrete !== undefined && rules.abstract(next) ? concrete : next);
    }
  };
  for (const set of sets) walk(set, concrete ?? type);
  return fields;
}

function applies(rules: CostRules, reading: Reading, condition: GraphQLNamedType, concrete: GraphQLNamedType | undefined): boolean {
  if (concrete === undefined || condition === concrete) return true;
  return rules.abstract(condition) && reading.schema.isSubType(condition as GraphQLAbstractType, concrete as GraphQLObjectType);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
