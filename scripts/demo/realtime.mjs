/**
 * The third part of `pnpm demo`: limits where one request is not one unit (issue 34), on the two
 * examples that show them, each answer checked.
 *
 * - examples/graphql, on Yoga (/yoga) and on Apollo (/apollo), each with its own API key: a query
 *   holding 20 and costing 3 (the refund), three batches of 40 aliased logins (the third refused with
 *   THROTTLED, 429 and a whole-second Retry-After), then, after waiting as long as it asked, the same
 *   batch admitted; and 51 aliased logins refused by the ceiling (400 MAX_COST_EXCEEDED).
 * - examples/websocket: 12 quick messages on one ws socket (5 echoed, one warning, closed with 1008 at
 *   the 5th refusal) and 5 quick socket.io `chat` events (3 broadcast, one `rate_limited` event).
 *
 * The clients come from examples/websocket's own dependencies (ws, socket.io-client).
 */
import { createRequire } from 'node:module';

const need = createRequire(new URL('../../examples/websocket/package.json', import.meta.url));
const { WebSocket } = need('ws');
const { io } = need('socket.io-client');
const TIMEOUT_MS = 5000;

export const REALTIME = ['graphql', 'websocket'];

const logins = (n) => `mutation { ${Array.from({ length: n }, (_, i) => `a${i}: login(user: "ada", password: "guess ${i}")`).join(' ')} }`;

/** driveRealtime runs one example's script and resolves to { lines, problems }. */
export function driveRealtime(name, url) {
  return name === 'graphql' ? driveGraphql(url) : driveWebsocket(url);
}

async function driveGraphql(url) {
  const lines = [];
  const problems = [];
  for (const path of ['/yoga', '/apollo']) {
    const key = `demo${path.slice(1)}`;
    const post = async (label, query, expected, check) => {
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const body = await res.json();
      const cost = body.extensions?.cost;
      const code = body.errors?.[0]?.extensions?.code ?? '';
      const retry = res.headers.get('retry-after');
      lines.push(
        `  ${path.padEnd(8)} ${label.padEnd(28)} ${res.status}  ${code.padEnd(17)} Retry-After ${(retry ?? '-').padEnd(3)} cost ${cost?.requestedQueryCost ?? '-'} → ${cost?.actualQueryCost ?? '-'}, available ${cost?.throttleStatus?.currentlyAvailable ?? '-'}`,
      );
      if (res.status !== expected) problems.push(`graphql ${path} ${label}: status ${res.status}, expected ${expected}`);
      const wrong = check?.(body, retry);
      if (wrong) problems.push(`graphql ${path} ${label}: ${wrong}`);
      return { body, retry };
    };
    await post('products(first: 20)', '{ products(first: 20) { title } }', 200, (b) =>
      b.extensions?.cost?.requestedQueryCost === 20 && b.extensions.cost.actualQueryCost === 3 ? undefined : 'not charged 20 then refunded to 3',
    );
    await post('40 aliased logins', logins(40), 200, (b) => (b.extensions?.cost?.actualQueryCost === 40 ? undefined : 'not charged 40'));
    await post('40 aliased logins', logins(40), 200);
    const refused = await post('40 aliased logins', logins(40), 429, (b, retry) =>
      b.errors?.[0]?.extensions?.code === 'THROTTLED' && /^[1-9][0-9]*$/.test(retry ?? '') ? undefined : 'not THROTTLED with a whole-second Retry-After',
    );
    const waitMs = Number(refused.retry ?? 0) * 1000;
    lines.push(`  ${' '.repeat(8)} … waits ${waitMs} ms, as Retry-After asked`);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    await post('40 aliased logins', logins(40), 200);
    await post('51 aliased logins', logins(51), 400, (b) => (b.errors?.[0]?.extensions?.code === 'MAX_COST_EXCEEDED' ? undefined : 'not MAX_COST_EXCEEDED'));
  }
  return { lines, problems };
}

function withTimeout(promise, what) {
  return Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), TIMEOUT_MS).unref())]);
}

async function driveWebsocket(url) {
  const lines = [];
  const problems = [];
  const socket = new WebSocket(`${url.replace('http', 'ws')}/chat`);
  await withTimeout(new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject)), 'ws open');
  const frames = [];
  socket.on('message', (data) => frames.push(String(data)));
  const closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve([code, String(reason)])));
  for (let i = 1; i <= 12; i++) socket.send(`m${i}`);
  const [code, reason] = await withTimeout(closed, 'ws close');
  const echoes = frames.filter((f) => f.startsWith('echo:')).length;
  const warnings = frames.filter((f) => f.startsWith('{"error":"rate_limited"')).length;
  lines.push(`  ws        12 messages: ${echoes} echoed, ${warnings} warning (${frames.find((f) => f.startsWith('{')) ?? 'none'}), closed ${code} "${reason}"`);
  if (echoes !== 5 || warnings !== 1 || code !== 1008) problems.push(`websocket ws: ${echoes} echoes, ${warnings} warnings, close ${code}; expected 5, 1, 1008`);

  const client = io(url, { transports: ['websocket'], reconnection: false, forceNew: true });
  await withTimeout(new Promise((resolve, reject) => client.once('connect', resolve).once('connect_error', reject)), 'socket.io connect');
  const chats = [];
  client.on('chat', (text) => chats.push(text));
  const warned = withTimeout(new Promise((resolve) => client.once('rate_limited', resolve)), 'socket.io warning');
  for (let i = 1; i <= 5; i++) client.emit('chat', `c${i}`);
  const warning = await warned;
  // One more event, under the catch-all limit: once it is acknowledged, every chat before it has been decided and broadcast.
  await client.timeout(TIMEOUT_MS).emitWithAck('sync');
  client.disconnect();
  lines.push(`  socket.io 5 chat events: ${chats.length} broadcast, warning ${JSON.stringify(warning)}`);
  if (chats.length !== 3 || warning?.event !== 'chat' || warning?.retryAfterSeconds !== 1)
    problems.push(`websocket socket.io: ${chats.length} broadcasts, warning ${JSON.stringify(warning)}; expected 3 and one chat warning of 1 s`);
  return { lines, problems };
}
