/**
 * What a property added to an Express request costs on this Node: `node src/http/_express-property.mjs
 * [--calls=N] [--rounds=N]`.
 *
 * Express gives every request its app's prototype (`Object.setPrototypeOf(req, app.request)`). Each
 * row builds an IncomingMessage the way Node does and then does what its label says; the difference
 * to the first row is the cost of that step. The accessor row runs @ratekeeper/express's own decision
 * slot (built: `pnpm build`): its per-request check, then the `rateLimit` accessor it installed on the
 * prototype, values in a WeakMap by request. Median ns per request of
 * interleaved rounds. Not a section (its name starts with "_"): the figure behind
 * packages/express/src/decision-slot.ts.
 */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { flags, intFlag } from '../lib/args.mjs';
import { median } from '../lib/stats.mjs';
import { slotted } from '../../../packages/express/dist/esm/decision-slot.js';
import { fixed, formatTable } from '../lib/table.mjs';

const f = flags(process.argv.slice(2));
const calls = intFlag(f, 'calls', 200_000);
const rounds = intFlag(f, 'rounds', 7);
const socket = new Socket();
const decision = { allowed: true };
const plainProto = Object.create(IncomingMessage.prototype);
// An app's request prototype as Express makes it (`app.request`, whose `app.request` is itself), so
// that the shipped decision slot installs its accessor there.
const appProto = Object.create(IncomingMessage.prototype);
Object.defineProperty(appProto, 'app', { value: { request: appProto } });

const ROWS = [
  ['new IncomingMessage, setPrototypeOf', () => Object.setPrototypeOf(new IncomingMessage(socket), plainProto)],
  [
    '  + req.rateLimit (a property added)',
    () => {
      const req = Object.setPrototypeOf(new IncomingMessage(socket), plainProto);
      req.rateLimit = decision;
      return req;
    },
  ],
  [
    '  + req.rateLimit (the decision slot: its check, then the accessor)',
    () => {
      const req = slotted(Object.setPrototypeOf(new IncomingMessage(socket), appProto));
      req.rateLimit = decision;
      return req;
    },
  ],
  ['new IncomingMessage', () => new IncomingMessage(socket)],
  [
    '  + req.rateLimit (a property added, no setPrototypeOf)',
    () => {
      const req = new IncomingMessage(socket);
      req.rateLimit = decision;
      return req;
    },
  ],
];

function timed(make) {
  let keep;
  const start = performance.now();
  for (let i = 0; i < calls; i++) keep = make();
  if (keep.rateLimit !== undefined && keep.rateLimit !== decision) throw new Error('express-property: the value did not stick');
  return ((performance.now() - start) * 1e6) / calls;
}

for (const [, make] of ROWS) timed(make);
if (Object.getOwnPropertyDescriptor(appProto, 'rateLimit')?.get === undefined) throw new Error('express-property: the decision slot installed no accessor');
const samples = ROWS.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let j = 0; j < ROWS.length; j++) {
    const i = (j + r) % ROWS.length;
    samples[i].push(timed(ROWS[i][1]));
  }
}
console.log(`Node ${process.version}: ns per request, median of ${rounds} interleaved rounds of ${calls} (${new Date().toISOString()})`);
const base = (i) => (i < 3 ? 0 : 3);
console.log(
  formatTable(
    ['step', 'ns', '+ ns'],
    ROWS.map(([label], i) => [label, fixed(median(samples[i]), 0), i === base(i) ? '' : fixed(median(samples[i]) - median(samples[base(i)]), 0)]),
  ),
);
