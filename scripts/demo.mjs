/**
 * `pnpm demo`: starts the example servers (examples/express, fastify, koa, hono, and examples/nestjs on
 * its Express and its Fastify platform) as child processes on free loopback ports, drives the same
 * short burst at each (demo/drive.mjs), prints one table per framework (demo/table.mjs); then the two
 * per-caller examples (examples/api-keys, examples/login) and the tRPC example (examples/trpc) with
 * their own scripts and checks (demo/callers.mjs); then examples/graphql and examples/websocket, where
 * one request is not one unit (demo/realtime.mjs, each answer checked); stops the servers and exits.
 *
 * Exit status: 0 only when every server started and every answer passed demo/checks.mjs (200 or 429,
 * headers present, each limit engaged, Retry-After obeyed and sufficient); 1 otherwise, with the reasons
 * printed; 130 on Ctrl-C. The whole run is bounded (DEADLINE_MS) and leaves no process behind.
 */
import { fileURLToPath } from 'node:url';
import { CALLERS, checkCallers, driveCallers } from './demo/callers.mjs';
import { checkRows } from './demo/checks.mjs';
import { driveRealtime, REALTIME } from './demo/realtime.mjs';
import { drive } from './demo/drive.mjs';
import { startServer, stopAll } from './demo/servers.mjs';
import { formatTable } from './demo/table.mjs';

const EXAMPLES = [
  ['Express', 'express'],
  ['Fastify', 'fastify'],
  ['Koa', 'koa'],
  ['Hono', 'hono'],
  ['NestJS (Express)', 'nestjs', { PLATFORM: 'express' }],
  ['NestJS (Fastify)', 'nestjs', { PLATFORM: 'fastify' }],
];
const START_TIMEOUT_MS = 20_000;
const DEADLINE_MS = 75_000;

const INTRO = `ratekeeper demo: the same limits on an Express, a Fastify, a Koa, a Hono (on Node) and a NestJS
(Express and Fastify platforms, one global guard) server (examples/*), keyed by client IP:
  every route    "global"       token bucket: bursts of 100, refilled at 10 per second
                                (on Fastify, a route's own config.rateLimit replaces it)
  POST /login    "login"        5 per minute, sliding window
  GET /search    "search-1s"    5 per second (token bucket)   } composite: all or nothing, and a denial
                 "search-1m"    8 per minute (sliding window) } by one costs the other nothing
Each server gets GET /, 8 quick GET /search, a pause as long as the last Retry-After asked,
4 more GET /search, then 6 POST /login.
Then limits from who the caller is (examples/api-keys, examples/login, Express):
  api-keys       "free" / "pro" 10 / 100 units a minute, the plan found by an async API-key lookup;
                                a unit is 1 KiB of response, settled after the response is sent
  login          "login-failures" 5 failed logins per 15 minutes (only failures count), then a ban of an hour
Then limits where one request is not one unit (examples/graphql, examples/websocket):
  graphql        "graphql"      a budget of 100 units per API key, 10 a second back, on Yoga and on Apollo:
                                each operation's estimate held, refunded down to its actual cost;
                                one operation at most 50 (every alias counts)
  websocket      "messages"     ws: bursts of 5 messages, 2 a second; warn, close with 1008 at the 5th refusal
                 "chat"         socket.io: 3 chat events at once, 1 a second; warn
And a tRPC server (examples/trpc, tRPC's Express adapter): the same global, login and search limits on
procedures, a denied call answered TOO_MANY_REQUESTS (429, Retry-After), each call of a batch counted.
`;

async function main() {
  const begun = performance.now();
  console.log(INTRO);
  const servers = await Promise.all(EXAMPLES.map(([name, dir, env]) => startServer(name, fileURLToPath(new URL(`../examples/${dir}/`, import.meta.url)), START_TIMEOUT_MS, env)));
  const callers = await Promise.all(Object.keys(CALLERS).map((dir) => startServer(dir, fileURLToPath(new URL(`../examples/${dir}/`, import.meta.url)), START_TIMEOUT_MS)));
  const realtime = await Promise.all(REALTIME.map((dir) => startServer(dir, fileURLToPath(new URL(`../examples/${dir}/`, import.meta.url)), START_TIMEOUT_MS)));
  const problems = [];
  const answers = [];
  for (const { name, url } of servers) {
    const rows = await drive(url);
    console.log(`${formatTable(`${name} (${url})`, rows)}\n`);
    problems.push(...checkRows(rows).map((problem) => `${name}: ${problem}`));
    answers.push(...rows.filter((row) => row.waitedMs === undefined));
  }
  for (const { name, url } of callers) {
    const rows = await driveCallers(url, CALLERS[name]);
    console.log(`${formatTable(`${name} (${url})`, rows)}\n`);
    problems.push(...checkCallers(rows).map((problem) => `${name}: ${problem}`));
    answers.push(...rows);
  }
  let realtimeAnswers = 0;
  for (const { name, url } of realtime) {
    const { lines, problems: found } = await driveRealtime(name, url);
    console.log(`${name} (${url})\n${lines.join('\n')}\n`);
    problems.push(...found);
    realtimeAnswers += lines.length;
  }
  await stopAll();
  const count = (status) => answers.filter((row) => row.status === status).length;
  const seconds = ((performance.now() - begun) / 1000).toFixed(1);
  console.log(
    `${servers.length + callers.length + realtime.length} servers, ${answers.length} HTTP answers: ${count(200)} × 200, ${count(401)} × 401, ${count(429)} × 429; ${realtimeAnswers} GraphQL and WebSocket checks; servers stopped; ${seconds} s.`,
  );
  if (problems.length === 0) return 0;
  console.error(`\nThe demo found ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return 1;
}

let finishing = false;

/** finish stops every server, then exits with `code`; the first call wins (Ctrl-C also fails main). */
async function finish(code, message) {
  if (finishing) return;
  finishing = true;
  if (message !== undefined) console.error(`\ndemo: ${message}`);
  await stopAll();
  process.exit(code);
}

// Any way out but a clean finish (even an event loop that drains while awaiting) is a failure.
process.exitCode = 1;
process.once('SIGINT', () => finish(130, 'interrupted; stopping the servers'));
process.once('SIGTERM', () => finish(143, 'terminated; stopping the servers'));
setTimeout(() => finish(1, `still running after ${DEADLINE_MS / 1000} s; giving up`), DEADLINE_MS).unref();
main().then(
  (code) => finish(code),
  (error) => finish(1, error instanceof Error ? (error.cause ? `${error.message} (${error.cause.message ?? error.cause})` : error.message) : String(error)),
);
