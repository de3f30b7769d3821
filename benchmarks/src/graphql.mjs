// Section "graphql": what @ratekeeper/graphql's envelop plugin adds to each GraphQL operation, in
// process, beside the peers (issue 34). One operation, `{ items(first: 10) { id name } hello }`,
// through envelop's pipeline as GraphQL Yoga runs it (validate, contextFactory, execute; the document
// parsed once, as Yoga's parse cache does), in variants measured in alternating short chunks:
//   - no plugin: the floor;
//   - useCostBudget: the estimate (cached per document), a token bucket per client on the memory store,
//     the actual cost read from the result, the refund and `extensions.cost`;
//   - useCostBudget, a fresh document each time (no parse cache: the estimate computed every time);
//   - @envelop/rate-limiter 10: `@rateLimit` on `items` (one field counted per operation), its
//     in-memory store;
//   - graphql-armor's cost limit 2: its validation rule (a per-operation ceiling, no budget);
//   - useCostBudget's two hooks alone on a prepared result (no engine): its own cost, free of the
//     engine's noise on a busy machine.
// Reported: median µs per operation, its ~95 % interval, and the µs added to the floor.
//
// Flags: --graphql-rounds=N (41 alternations), --graphql-n=N (500 operations per chunk).
import { envelop, useEngine, useSchema } from '@envelop/core';
import { useRateLimiter } from '@envelop/rate-limiter';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { useCostBudget } from '@ratekeeper/graphql';
import * as graphql from 'graphql';
import { flags, intFlag } from './lib/args.mjs';
import { median, medianInterval } from './lib/stats.mjs';
import { fixed, formatTable } from './lib/table.mjs';

const QUERY = '{ items(first: 10) { id name } hello }';
const typeDefs = `
  directive @rateLimit(max: Int, window: String, message: String, identityArgs: [String], arrayLengthField: String, readOnly: Boolean, uncountRejected: Boolean) on FIELD_DEFINITION
  type Query { items(first: Int): [Item!]! @rateLimit(max: 1000000000, window: "1s") hello: String }
  type Item { id: ID! name: String! }`;
const ITEMS = Array.from({ length: 10 }, (_, i) => ({ id: String(i), name: `item ${i}` }));
const schema = makeExecutableSchema({ typeDefs, resolvers: { Query: { items: () => ITEMS, hello: () => 'world' } } });

function pipeline(plugins, fresh = false) {
  const getEnveloped = envelop({ plugins: [useEngine(graphql), useSchema(schema), ...plugins] });
  const cached = graphql.parse(QUERY);
  return {
    async run(n) {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        const { validate, contextFactory, execute, schema: s } = getEnveloped({ request: {} });
        const document = fresh ? graphql.parse(QUERY) : cached;
        if (validate(s, document).length > 0) throw new Error('invalid');
        const result = await execute({ schema: s, document, contextValue: await contextFactory() });
        if (result.errors === undefined) ok++;
      }
      if (ok !== n) throw new Error(`${ok} of ${n} operations succeeded`);
    },
  };
}

/** hooksAlone runs the plugin's two hooks per operation on a prepared result: what it adds, without the engine's noise. */
function hooksAlone() {
  const plugin = useCostBudget({ limiter: new TokenBucketLimiter({ capacity: 1e12, refillPerSecond: 1e6 }), key: () => 'client' });
  const document = graphql.parse(QUERY);
  const result = graphql.execute({ schema, document });
  const args = { schema, document, contextValue: {}, variableValues: undefined, operationName: undefined };
  const stop = () => {
    throw new Error('refused');
  };
  let written = 0;
  const setResult = () => written++;
  return {
    async run(n) {
      for (let i = 0; i < n; i++) plugin.onExecute({ args, setResultAndStopExecution: stop }).onExecuteDone({ result, setResult });
      return written;
    },
  };
}

export async function run(args) {
  const f = flags(args);
  const rounds = intFlag(f, 'graphql-rounds', 41);
  const n = intFlag(f, 'graphql-n', 500);
  const budget = () => useCostBudget({ limiter: new TokenBucketLimiter({ capacity: 1e12, refillPerSecond: 1e6 }), key: () => 'client' });
  const variants = [
    { label: 'no plugin (the floor)', p: pipeline([]) },
    { label: 'useCostBudget (per-client budget, refund)', p: pipeline([budget()]) },
    { label: 'useCostBudget, no parse cache', p: pipeline([budget()], true) },
    { label: '@envelop/rate-limiter (@rateLimit on one field)', p: pipeline([useRateLimiter({ identifyFn: () => 'client' })]) },
    { label: 'graphql-armor cost limit (ceiling only)', p: pipeline([costLimitPlugin({ maxCost: 5000 })]) },
    { label: 'useCostBudget hooks alone, no engine', p: hooksAlone() },
  ];
  const samples = variants.map(() => []);
  for (let r = -3; r < rounds; r++) {
    for (let i = 0; i < variants.length; i++) {
      const t = process.hrtime.bigint();
      await variants[i].p.run(n);
      const us = Number(process.hrtime.bigint() - t) / n / 1000;
      if (r >= 0) samples[i].push(us);
    }
  }
  const floor = median(samples[0]);
  const rows = variants.map((v, i) => {
    const [lo, hi] = medianInterval(samples[i]);
    const m = median(samples[i]);
    return [v.label, fixed(m, 2), `${fixed(lo, 2)}–${fixed(hi, 2)}`, i === 0 ? '—' : fixed(m - floor, 2), `${fixed(m / floor, 2)}×`];
  });
  console.log(`graphql — one operation (${QUERY}) through envelop, in process, memory store; ${rounds} alternating chunks of ${n}; medians`);
  console.log(formatTable(['variant', 'µs/operation', '~95% interval', 'µs added', 'vs floor'], rows));
}
