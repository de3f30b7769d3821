/**
 * The cost model's arithmetic, as tables: each row a document, its variables and its estimate (and,
 * executed on the test schema, its actual cost). The schema is test/support/schema.ts: `items`
 * answers at most 3 items, `report` weighs 20 by `@cost`, `search` assumes 5 results by `@listSize`.
 */
import { type DocumentNode, execute, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CostModel, type CostModelOptions } from '../src/index.js';
import { Runs, schemaWith } from './support/schema.js';

const schema = schemaWith(new Runs());

interface Row {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly options?: CostModelOptions;
  readonly estimate: number;
  readonly actual?: number;
}

const ROWS: readonly Row[] = [
  { query: '{ hello }', estimate: 1, actual: 1 },
  { query: '{ __typename }', estimate: 0, actual: 0 },
  { query: '{ items(first: 5) { id name } }', estimate: 5, actual: 3 },
  { query: '{ items { id } }', estimate: 10, actual: 3 },
  { query: '{ items(first: 1000000) { id } }', estimate: 100, actual: 3 },
  { query: '{ items(first: -4) { id } }', estimate: 1, actual: 1 },
  { query: '{ items(first: 5) { tags(limit: 3) } }', options: { scalarCost: 1 }, estimate: 20, actual: 3 * (1 + 2) },
  { query: '{ report }', estimate: 20, actual: 20 },
  { query: '{ search(term: "x") { ... on Item { id } ... on Person { name } } }', estimate: 5, actual: 2 },
  { query: '{ a: item(id: "1") { name } b: item(id: "2") { name } }', estimate: 2, actual: 2 },
  { query: '{ item(id: "none") { name } }', estimate: 1, actual: 1 },
  { query: '{ hello ...F } fragment F on Query { items(first: 2) { id } }', estimate: 3, actual: 3 },
  { query: '{ ...F ...F } fragment F on Query { items(first: 2) { id } }', estimate: 4, actual: 2 },
  { query: 'query ($n: Int) { items(first: $n) { id } }', variables: { n: 7 }, estimate: 7, actual: 3 },
  { query: 'query ($n: Int = 4) { items(first: $n) { id } }', estimate: 4, actual: 3 },
  { query: 'query ($n: Int = 4) { items(first: $n) { id } }', variables: { n: null }, estimate: 10, actual: 3 },
  { query: '{ items(first: 3) @skip(if: true) { id } hello }', estimate: 1, actual: 1 },
  { query: 'query ($go: Boolean!) { items(first: 3) @include(if: $go) { id } hello }', variables: { go: false }, estimate: 1, actual: 1 },
  { query: 'mutation { a: login(user: "a", password: "1") b: login(user: "a", password: "2") }', estimate: 2, actual: 2 },
  { query: '{ items(first: 2) { id } hello }', options: { costs: { Item: 2, 'Query.hello': 5 } }, estimate: 9, actual: 9 },
  { query: '{ __schema { types { name } } }', estimate: 11 },
  { query: '{ __schema { types { name } } }', options: { introspection: 'exempt' }, estimate: 0, actual: 0 },
  { query: '{ items(first: 50) { id } }', options: { maxListSize: 20 }, estimate: 20, actual: 3 },
  { query: '{ items { id } }', options: { defaultListSize: 2 }, estimate: 2, actual: 3 },
  { query: '{ hello }', options: { rootFieldCost: 0 }, estimate: 0, actual: 0 },
];

describe('CostModel', () => {
  it.each(ROWS.map((row, i) => [i, row] as const))('row %i prices its document', (i, row) => {
    const model = new CostModel(row.options);
    const document = parse(row.query);
    const got = model.estimate(schema, document, undefined, row.variables);
    expect(got, `row ${i} (${row.query}): estimate`).toBe(row.estimate);
    if (row.actual === undefined) return;
    const result = execute({ schema, document, variableValues: row.variables }) as { data?: unknown };
    expect(model.actual(schema, document, undefined, row.variables, result.data), `row ${i} (${row.query}): actual`).toBe(row.actual);
  });

  it('caches an estimate that read no variable, per document, and prices one that did per request', () => {
    const model = new CostModel();
    const document: DocumentNode = parse('query ($n: Int) { items(first: $n) { id } }');
    expect(model.estimate(schema, document, undefined, { n: 2 })).toBe(2);
    expect(model.estimate(schema, document, undefined, { n: 9 })).toBe(9);
    const fixed = parse('{ items(first: 4) { id } }');
    expect(model.estimate(schema, fixed)).toBe(4);
    expect(model.estimate(schema, fixed)).toBe(4);
  });

  it('picks the named operation of a document, and prices an unknown one at 0', () => {
    const model = new CostModel();
    const document = parse('query A { hello } query B { items(first: 6) { id } }');
    expect(model.estimate(schema, document, 'B')).toBe(6);
    expect(model.estimate(schema, document, 'C')).toBe(0);
    expect(model.estimate(schema, document)).toBe(0);
  });

  it('refuses invalid options at construction, naming the option and the value', () => {
    expect(() => new CostModel({ maxListSize: 0 })).toThrow(new RangeError('CostModel: maxListSize must be a positive integer, got 0'));
    expect(() => new CostModel({ objectCost: -1 })).toThrow(new RangeError('CostModel: objectCost must be a non-negative integer, got -1'));
    expect(() => new CostModel({ scalarCost: '1' as never })).toThrow(new TypeError('CostModel: scalarCost must be a non-negative integer, got "1"'));
    expect(() => new CostModel({ defaultListSize: 200 })).toThrow(new RangeError('CostModel: defaultListSize must be at most maxListSize (100), got 200'));
    expect(() => new CostModel({ introspection: 'free' as never })).toThrow(new TypeError(`CostModel: introspection must be 'priced' or 'exempt', got "free"`));
    expect(() => new CostModel({ costs: { 'not a coordinate': 1 } })).toThrow(TypeError);
    expect(() => new CostModel({ costs: { User: 1.5 } })).toThrow(new RangeError('CostModel: costs["User"] must be a non-negative integer, got 1.5'));
    expect(() => new CostModel({ listArguments: 'first' as never })).toThrow(TypeError);
    expect(() => new CostModel({ maxCost: 3 } as never)).toThrow('CostModel: unknown option "maxCost"');
  });
});
