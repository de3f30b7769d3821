/**
 * The schema the tests serve: a `login` mutation answering a Boolean (the alias attack's target), a
 * list whose resolver answers fewer items than asked (so the actual cost is below the estimate), and a
 * union. Each resolver run is counted, so a test can say that nothing ran.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';

export const TYPE_DEFS = /* GraphQL */ `
  directive @cost(weight: Int!) on FIELD_DEFINITION | OBJECT
  directive @listSize(assumedSize: Int, slicingArguments: [String!]) on FIELD_DEFINITION

  type Query {
    items(first: Int): [Item!]!
    item(id: ID!): Item
    search(term: String!): [Result!]! @listSize(assumedSize: 5)
    report: String @cost(weight: 20)
    hello: String
  }
  type Mutation {
    login(user: String!, password: String!): Boolean!
  }
  type Item {
    id: ID!
    name: String!
    tags(limit: Int): [String!]!
  }
  type Person @cost(weight: 3) {
    name: String!
  }
  union Result = Item | Person
`;

/** Counts: resolver runs, by field. */
export class Runs {
  readonly counts = new Map<string, number>();
  count(field: string): void {
    this.counts.set(field, (this.counts.get(field) ?? 0) + 1);
  }
  get total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }
}

/** schemaWith answers a schema whose `items` resolver returns `returned` items (at most what was asked). */
export function schemaWith(runs: Runs, returned = 3) {
  return makeExecutableSchema({
    typeDefs: TYPE_DEFS,
    resolvers: {
      Query: {
        items: (_: unknown, { first }: { first?: number }) => {
          runs.count('items');
          return Array.from({ length: Math.min(first ?? 10, returned) }, (_, i) => ({ id: String(i), name: `item ${i}` }));
        },
        item: (_: unknown, { id }: { id: string }) => {
          runs.count('item');
          return id === 'none' ? null : { id, name: `item ${id}` };
        },
        search: () => {
          runs.count('search');
          return [{ id: '1', name: 'one' }, { name: 'Ada' }];
        },
        report: () => {
          runs.count('report');
          return 'done';
        },
        hello: () => {
          runs.count('hello');
          return 'world';
        },
      },
      Mutation: {
        login: () => {
          runs.count('login');
          return false;
        },
      },
      Item: { tags: (_: unknown, { limit }: { limit?: number }) => ['a', 'b'].slice(0, limit ?? 2) },
      Result: { __resolveType: (value: { id?: string }) => (value.id === undefined ? 'Person' : 'Item') },
    },
  });
}
