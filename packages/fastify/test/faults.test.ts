/**
 * Concurrency and fault tests, each paired with the mutant it must catch: a burst of concurrent
 * requests on an asynchronous limiter admits exactly its capacity; a limiter that rejects leaks no
 * text; every kind of request (route, automatic HEAD, 404, a route added before the plugin loaded) is
 * counted exactly once; a custom handler's answer finished by an asynchronous onSend hook is the only
 * answer.
 */
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { answersWhileOnSendRuns, concurrentBurst, consumesPerRequest, leakedText } from './harness.js';
import { bypassPlan } from './mutants/bypass-plan.js';
import { eagerDefault } from './mutants/eager-default.js';
import { fireAndForget } from './mutants/fire-and-forget.js';
import { routeHooks } from './mutants/route-hooks.js';

describe('a concurrent burst on an asynchronous limiter', () => {
  it('admits exactly the capacity, and the handler runs exactly that often', async () => {
    expect(await concurrentBurst(rateLimit, 10, 50)).toEqual({ handled: 10, ok: 10, limited: 40 });
  });

  it('catches the mutant that does not wait for the decision', async () => {
    expect((await concurrentBurst(fireAndForget, 10, 50)).handled).toBe(50);
  });
});

describe('a limiter whose promise rejects', () => {
  const secret = 'redis://admin:hunter2@10.0.0.5';

  it('answers 500 without the store’s text', async () => {
    const { status, text } = await leakedText(rateLimit, secret);
    expect(status).toBe(500);
    expect(text).not.toContain('hunter2');
  });

  it('catches the mutant that hands the store’s own error to Fastify', async () => {
    expect((await leakedText(bypassPlan, secret)).text).toContain('hunter2');
  });
});

describe('one consume per request', () => {
  const once = { 'GET /route': 1, 'HEAD /route': 1, 'GET /missing': 1, 'POST /route': 1, 'GET /early': 1 };

  it('counts a route, its automatic HEAD, a 404 (limitNotFound), a method the route lacks and a route added before the plugin exactly once', async () => {
    expect(await consumesPerRequest(rateLimit)).toEqual(once);
  });

  it('catches the mutant that hooks each route in onRoute and so never counts a 404', async () => {
    const counts = await consumesPerRequest(routeHooks);
    expect(counts).not.toEqual(once);
    expect(counts['GET /missing']).toBe(0);
  });
});

describe('a custom handler answering while an asynchronous onSend hook runs', () => {
  it('is answered once, by the handler', async () => {
    expect(await answersWhileOnSendRuns(rateLimit)).toEqual({ status: 429, body: 'slow down', onSend: 'ran', warnings: [] });
  });

  it('catches the mutant that sends the default body after a handler that returned undefined', async () => {
    expect((await answersWhileOnSendRuns(eagerDefault)).warnings).toContain('Reply was already sent, did you forget to "return reply" in the "/" (GET) route?');
  });
});
