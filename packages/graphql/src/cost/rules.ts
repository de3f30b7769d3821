/**
 * CostRules: the validated settings of a cost model, and the weight of each field they give. A field's
 * weight is, first found: its schema coordinate in `costs` (`"Mutation.login": 10`), a `@cost(weight:)`
 * directive on the field, its return type's coordinate in `costs` (`"User": 2`), a `@cost` directive
 * on that type, and otherwise `objectCost` for a type with fields (object, interface, union) or
 * `scalarCost` for a leaf (scalar, enum). A list field's size comes from the first of its slicing
 * arguments the operation sets (`@listSize(slicingArguments:)` on the field, else `listArguments`),
 * capped at `maxListSize`, or else from `@listSize(assumedSize:)`, or else `defaultListSize`.
 *
 * The weights of a schema's fields, and what their types are, are computed once per field object and
 * kept in a WeakMap, so a new schema (a hot reload) is priced afresh and the old one is collected.
 * (graphql-js's type predicates are slow when they answer false outside production mode: the hot
 * paths read these instead.)
 */
import {
  type GraphQLField,
  type GraphQLNamedType,
  type ValueNode,
  getNamedType,
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  Kind,
  type GraphQLOutputType,
} from 'graphql';
import { optionError, optionsOf, typeError, wholeNumber } from '@ratekeeper/core/adapter';

/** CostModelOptions: how operations are priced (every option has a working default). */
export interface CostModelOptions {
  /** The weight of each object a field returns, for types without a weight of their own (default 1). */
  readonly objectCost?: number;
  /** The weight of a leaf field (scalar or enum) without a weight of its own (default 0). */
  readonly scalarCost?: number;
  /** The least a top-level field of an operation costs, whatever it returns (default 1): a mutation answering a Boolean is still a call. */
  readonly rootFieldCost?: number;
  /** Weights by schema coordinate: `"Type"` (each object of the type) or `"Type.field"` (the field). Non-negative integers. */
  readonly costs?: Readonly<Record<string, number>>;
  /** The arguments that size a list, first found wins (default `['first', 'last', 'limit']`). */
  readonly listArguments?: readonly string[];
  /** The size assumed for a list none of whose slicing arguments is set (default 10). */
  readonly defaultListSize?: number;
  /** The most one list argument can ask for, as priced (default 100): `first: 1000000` costs as 100. */
  readonly maxListSize?: number;
  /** `'priced'` (default): `__schema` and `__type` cost as any field; `'exempt'`: they cost nothing. */
  readonly introspection?: 'priced' | 'exempt';
}

const KNOWN = ['objectCost', 'scalarCost', 'rootFieldCost', 'costs', 'listArguments', 'defaultListSize', 'maxListSize', 'introspection'] as const;

/** FieldPrice: what the model needs of one field definition, computed once. */
export interface FieldPrice {
  /** The field's named return type, and whether it is a leaf (scalar, enum) or abstract (interface, union). */
  readonly named: GraphQLNamedType;
  readonly leaf: boolean;
  readonly abstract: boolean;
  readonly weight: number;
  readonly list: boolean;
  readonly slicing: readonly string[];
  readonly assumedSize: number;
}

export class CostRules {
  readonly objectCost: number;
  readonly scalarCost: number;
  readonly rootFieldCost: number;
  readonly listArguments: readonly string[];
  readonly defaultListSize: number;
  readonly maxListSize: number;
  readonly introspection: 'priced' | 'exempt';
  readonly #costs: ReadonlyMap<string, number>;
  readonly #prices = new WeakMap<object, FieldPrice>();
  readonly #abstract = new WeakMap<object, boolean>();

  constructor(owner: string, options: CostModelOptions | undefined) {
    const o = optionsOf(owner, options, KNOWN);
    this.objectCost = wholeNumber(owner, 'objectCost', o.objectCost ?? 1);
    this.scalarCost = wholeNumber(owner, 'scalarCost', o.scalarCost ?? 0);
    this.rootFieldCost = wholeNumber(owner, 'rootFieldCost', o.rootFieldCost ?? 1);
    this.defaultListSize = wholeNumber(owner, 'defaultListSize', o.defaultListSize ?? 10);
    this.maxListSize = wholeNumber(owner, 'maxListSize', o.maxListSize ?? 100, 1);
    if (this.defaultListSize > this.maxListSize) optionError(owner, 'defaultListSize', `at most maxListSize (${this.maxListSize})`, this.defaultListSize, 'number');
    this.listArguments = names(owner, 'listArguments', o.listArguments ?? ['first', 'last', 'limit']);
    const introspection = o.introspection ?? 'priced';
    if (introspection !== 'priced' && introspection !== 'exempt') typeError(owner, 'introspection', "'priced' or 'exempt'", introspection);
    this.introspection = introspection;
    this.#costs = coordinates(owner, o.costs ?? {});
  }

  /** price answers the weight and list sizing of field `field` of type `parent` (cached per definition). */
  price(parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>): FieldPrice {
    const known = this.#prices.get(field);
    if (known !== undefined) return known;
    const named = getNamedType(field.type);
    const size = directive(field.astNode?.directives, 'listSize');
    const slicing = listOf(size?.get('slicingArguments'));
    const assumed = intOf(size?.get('assumedSize'));
    const price: FieldPrice = {
      named,
      leaf: isLeafType(named),
      abstract: isAbstractType(named),
      weight: this.#costs.get(`${parent.name}.${field.name}`) ?? costOf(field.astNode?.directives) ?? this.#typeWeight(named),
      list: isList(field.type),
      slicing: slicing ?? this.listArguments,
      assumedSize: assumed === undefined ? this.defaultListSize : Math.min(assumed, this.maxListSize),
    };
    this.#prices.set(field, price);
    return price;
  }

  /** abstract tells whether a named type is an interface or a union (cached per type). */
  abstract(type: GraphQLNamedType): boolean {
    let known = this.#abstract.get(type);
    if (known === undefined) this.#abstract.set(type, (known = isAbstractType(type)));
    return known;
  }

  #typeWeight(type: GraphQLNamedType): number {
    return this.#costs.get(type.name) ?? costOf(type.astNode?.directives) ?? (isLeafType(type) ? this.scalarCost : this.objectCost);
  }
}

function isList(type: GraphQLOutputType): boolean {
  const inner = isNonNullType(type) ? type.ofType : type;
  return isListType(inner);
}

type DirectiveNodes =
  | readonly { readonly name: { readonly value: string }; readonly arguments?: readonly { readonly name: { readonly value: string }; readonly value: ValueNode }[] }[]
  | undefined;

/** directive answers the arguments of the first directive named `name`, or undefined. */
function directive(nodes: DirectiveNodes, name: string): Map<string, ValueNode> | undefined {
  const found = nodes?.find((d) => d.name.value === name);
  return found === undefined ? undefined : new Map((found.arguments ?? []).map((a) => [a.name.value, a.value]));
}

/** costOf reads `@cost(weight:)`: an Int, or a String holding one (the IBM cost specification's form). */
function costOf(nodes: DirectiveNodes): number | undefined {
  const weight = directive(nodes, 'cost')?.get('weight');
  if (weight === undefined) return undefined;
  const n = weight.kind === Kind.INT || weight.kind === Kind.STRING || weight.kind === Kind.FLOAT ? Number(weight.value) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function intOf(value: ValueNode | undefined): number | undefined {
  if (value?.kind !== Kind.INT) return undefined;
  const n = Number(value.value);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function listOf(value: ValueNode | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  if (value.kind === Kind.STRING) return [value.value];
  if (value.kind !== Kind.LIST) return undefined;
  return value.values.flatMap((v) => (v.kind === Kind.STRING ? [v.value] : []));
}

function names(owner: string, option: string, value: unknown): readonly string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== '')) optionError(owner, option, 'an array of argument names', value, 'object');
  return Object.freeze([...value]);
}

const COORDINATE = /^[_A-Za-z][_0-9A-Za-z]*(\.[_A-Za-z][_0-9A-Za-z]*)?$/;

function coordinates(owner: string, value: unknown): ReadonlyMap<string, number> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) optionError(owner, 'costs', 'an object of schema coordinates', value, 'object');
  const map = new Map<string, number>();
  for (const [coordinate, weight] of Object.entries(value)) {
    if (!COORDINATE.test(coordinate)) typeError(owner, 'costs', 'keyed by schema coordinates ("Type" or "Type.field")', coordinate);
    map.set(coordinate, wholeNumber(owner, `costs["${coordinate}"]`, weight));
  }
  return map;
}
