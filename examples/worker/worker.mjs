/**
 * The fetch example as a Cloudflare Worker: the client address from CF-Connecting-IP, which
 * Cloudflare's edge sets (overwriting any value the client sent), and the limits in Durable Objects
 * (@ratekeeper/durable-object): one RateLimiterObject per client address holds every limit of that
 * address, so the limits hold per client across every isolate and location, not per isolate. The
 * store needs the namespace binding, which comes with the first request's `env`: the app is built
 * then, once per isolate.
 */
import { DurableObjectStore, RateLimiterObject } from '@ratekeeper/durable-object';
import { createApp } from './app.mjs';

export { RateLimiterObject };

let handle;

export default {
  async fetch(request, env) {
    try {
      handle ??= createApp({ store: new DurableObjectStore({ namespace: env.LIMITS }) });
      return await handle(request, request.headers.get('CF-Connecting-IP'));
    } catch {
      return new Response('Internal Server Error', { status: 500 });
    }
  },
};
