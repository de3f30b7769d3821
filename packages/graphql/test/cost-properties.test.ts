/**
 * Properties of the cost model's math, over random documents (fast-check):
 * - every alias counts: n aliased logins cost n, and k aliases of one selection cost k times it;
 * - root fields add up: a document's estimate is the sum of its top-level fields' estimates;
 * - a list costs its size, within [0, maxListSize], times its item's cost, and grows with `first`;
 * - the estimate bounds the actual cost whenever the lists returned stay within their priced sizes.
 */
import fc from 'fast-check';
import { execute, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CostModel } from '../src/index.js';
import { Runs, schemaWith } from './support/schema.js';
import { aliases } from './support/servers.js';

const schema = schemaWith(new Runs(), 100);
const model = new CostModel();

/** A top-level field of the test schema, written with random sizes. */
const rootField = fc.oneof(
  fc.constant('hello'),
  fc.constant('report'),
  fc.integer({ min: -5, max: 300 }).map((n) => `items(first: ${n}) { id }`),
  fc.tuple(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 5 })).map(([n, l]) => `items(first: ${n}) { id tags(limit: ${l}) }`),
  fc.constant('item(id: "1") { name }'),
  fc.constant('search(term: "x") { ... on Item { id } ... on Person { name } }'),
);

const estimate = (query: string) => model.estimate(schema, parse(query));

describe('the cost model', () => {
  it('charges n aliased logins exactly n', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 2000 }), (n) => estimate(aliases(n)) === n));
  });

  it('charges k aliases of one selection k times its cost', () => {
    fc.assert(
      fc.property(rootField, fc.integer({ min: 1, max: 40 }), (field, k) => {
        const one = estimate(`{ ${field} }`);
        const many = estimate(`{ ${Array.from({ length: k }, (_, i) => `a${i}: ${field}`).join(' ')} }`);
        expect(many).toBe(k * one);
      }),
    );
  });

  it('adds up the top-level fields of a document', () => {
    fc.assert(
      fc.property(fc.array(rootField, { minLength: 1, maxLength: 12 }), (fields) => {
        const whole = estimate(`{ ${fields.map((f, i) => `f${i}: ${f}`).join(' ')} }`);
        expect(whole).toBe(fields.reduce((sum, f) => sum + estimate(`{ ${f} }`), 0));
      }),
    );
  });

  it('prices a list of objects at its size within [0, maxListSize], at least one call at the root, and never less for a larger first', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 10_000 }), fc.integer({ min: -10, max: 10_000 }), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const cost = estimate(`{ items(first: ${low}) { id } }`);
        expect(cost).toBe(Math.max(1, Math.min(100, Math.max(0, low))));
        expect(cost).toBeLessThanOrEqual(estimate(`{ items(first: ${high}) { id } }`));
      }),
    );
  });

  it('bounds the actual cost by the estimate when lists stay within their priced sizes', () => {
    fc.assert(
      fc.property(fc.array(rootField, { minLength: 1, maxLength: 8 }), (fields) => {
        const document = parse(`{ ${fields.map((f, i) => `f${i}: ${f}`).join(' ')} }`);
        const { data } = execute({ schema, document }) as { data?: unknown };
        const actual = model.actual(schema, document, undefined, undefined, data);
        expect(actual).toBeGreaterThanOrEqual(fields.length);
        expect(actual).toBeLessThanOrEqual(model.estimate(schema, document));
      }),
    );
  });
});
