// A Cloudflare Worker around the scenarios, bundled by esbuild and run on workerd through Miniflare:
// the address from CF-Connecting-IP (set by Cloudflare's edge; by Miniflare locally), Hono's from
// `hono/cloudflare-workers`. One module-level state per isolate, as on Workers. A thrown error is
// answered with a plain 500 (workerd's own error page is a development aid, not an answer).
import { getConnInfo } from 'hono/cloudflare-workers';
import { scenarios } from './scenarios.mjs';

const handle = scenarios({ getConnInfo });

export default {
  async fetch(request, env, ctx) {
    try {
      return await handle(request, request.headers.get('CF-Connecting-IP') ?? undefined, env, ctx);
    } catch {
      return new Response('Internal Server Error', { status: 500 });
    }
  },
};
