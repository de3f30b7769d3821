// The GraphQL example through a real socket, on Yoga and on Apollo, with a ManualClock: exact costs,
// the refund to the actual cost, the ceiling, the alias attack refused with Retry-After in whole
// seconds, and one budget per API key shared by both servers.
import { ManualClock } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from './app.mjs';

let server;
afterEach(() => server?.close());

async function start() {
  const clock = new ManualClock(0);
  server = await createApp({ clock });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const post = async (path, query, key = 'ada') => {
    const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query }) });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  };
  return { clock, post };
}

const logins = (n) => `mutation { ${Array.from({ length: n }, (_, i) => `a${i}: login(user: "ada", password: "guess ${i}")`).join(' ')} }`;

describe.each(['/yoga', '/apollo'])('the GraphQL example at %s', (path) => {
  it('holds 20 for products(first: 20), refunds down to the 3 returned', async () => {
    const { post } = await start();
    const answer = await post(path, '{ products(first: 20) { title } }');
    expect(answer.status).toBe(200);
    expect(answer.body.data.products).toHaveLength(3);
    expect(answer.body.extensions.cost).toEqual({ requestedQueryCost: 20, actualQueryCost: 3, throttleStatus: { maximumAvailable: 100, currentlyAvailable: 97, restoreRate: 10 } });
  });

  it('charges 40 aliased logins 40, and refuses the third batch with Retry-After until the budget holds it', async () => {
    const { clock, post } = await start();
    expect((await post(path, logins(40))).body.extensions.cost.throttleStatus.currentlyAvailable).toBe(60);
    expect((await post(path, logins(40))).body.extensions.cost.throttleStatus.currentlyAvailable).toBe(20);
    const refused = await post(path, logins(40));
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('2');
    expect(refused.body.errors[0].extensions).toEqual({ code: 'THROTTLED', retryAfterSeconds: 2 });
    expect((await post(path, '{ products(first: 3) { id } }', 'bob')).status).toBe(200);
    clock.advance(2000);
    expect((await post(path, logins(40))).status).toBe(200);
  });

  it('refuses an operation above the ceiling of 50 before it runs', async () => {
    const { post } = await start();
    const answer = await post(path, logins(51));
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].extensions.code).toBe('MAX_COST_EXCEEDED');
  });
});

it('shares one budget per API key between Yoga and Apollo', async () => {
  const { post } = await start();
  await post('/yoga', logins(50));
  const answer = await post('/apollo', logins(10));
  expect(answer.body.extensions.cost.throttleStatus.currentlyAvailable).toBe(40);
});
