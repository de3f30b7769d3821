/**
 * The GraphQL example: one schema, served by GraphQL Yoga at /yoga and by Apollo Server at /apollo on
 * one Node HTTP server, both with @ratekeeper/graphql and one budget per API key (`x-api-key`).
 *
 * - The budget: a token bucket of 100 units per API key, restored at 10 a second (Shopify's model).
 *   Each operation's estimate is held before it runs and refunded down to its actual cost.
 * - The ceiling: no single operation may cost more than 50 (`maxCost`).
 * - `products(first: N)` costs N (one per product; at most 100 priced), but returns 3 products: the
 *   refund gives the rest back. `login` costs 1 per alias, so 40 aliased logins cost 40.
 *
 * `clock` is injectable so the test can move time by hand; a server uses the system clock. Both
 * servers share one budget per key: the budget is the limiter, the plugins only charge it.
 */
import { createServer } from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import { systemClock, TokenBucketLimiter } from '@ratekeeper/core';
import { apolloCostBudget, useCostBudget } from '@ratekeeper/graphql';
import { createSchema, createYoga } from 'graphql-yoga';

const typeDefs = /* GraphQL */ `
  type Query { products(first: Int): [Product!]! }
  type Product { id: ID! title: String! }
  type Mutation { login(user: String!, password: String!): Boolean! }
`;
const PRODUCTS = [
  { id: '1', title: 'Lamp' },
  { id: '2', title: 'Chair' },
  { id: '3', title: 'Desk' },
];
const resolvers = {
  Query: { products: (_, { first }) => PRODUCTS.slice(0, first ?? 10) },
  Mutation: { login: (_, { password }) => password === 'correct horse' },
};

/** createApp builds the example's HTTP server (not listening), with its own budget. */
export async function createApp({ clock = systemClock } = {}) {
  const budget = new TokenBucketLimiter({ capacity: 100, refillPerSecond: 10, name: 'graphql', clock });
  const options = { limiter: budget, maxCost: 50 };
  const yoga = createYoga({
    schema: createSchema({ typeDefs, resolvers }),
    graphqlEndpoint: '/yoga',
    plugins: [useCostBudget({ ...options, key: ({ request }) => apiKey(request.headers.get('x-api-key')) })],
    landingPage: false,
    logging: false,
  });
  const apollo = new ApolloServer({ typeDefs, resolvers, plugins: [apolloCostBudget({ ...options, key: (context) => context.apiKey })] });
  await apollo.start();
  return createServer((req, res) => {
    if (req.url?.startsWith('/yoga')) return yoga(req, res);
    if (req.url?.startsWith('/apollo')) return serveApollo(apollo, req, res);
    res.writeHead(404).end();
  });
}

function apiKey(header) {
  return `key:${header ?? 'anonymous'}`;
}

/** serveApollo answers one POST with Apollo Server, as its integrations do (executeHTTPGraphQLRequest). */
async function serveApollo(apollo, req, res) {
  let text = '';
  for await (const chunk of req) text += chunk;
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const answer = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: req.method ?? 'POST', headers, search: '', body: text === '' ? undefined : JSON.parse(text) },
    context: async () => ({ apiKey: apiKey(headers.get('x-api-key')) }),
  });
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  res.statusCode = answer.status ?? 200;
  if (answer.body.kind === 'complete') return res.end(answer.body.string);
  for await (const chunk of answer.body.asyncIterator) res.write(chunk);
  res.end();
}
