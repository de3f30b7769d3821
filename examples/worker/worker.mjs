/**
 * The fetch example as a Cloudflare Worker: the client address from CF-Connecting-IP, which
 * Cloudflare's edge sets (overwriting any value the client sent). The limiters live at module scope,
 * so they last as long as the isolate: one limit per isolate, not per client worldwide (see README).
 */
import { createApp } from './app.mjs';

const handle = createApp();

export default {
  async fetch(request) {
    try {
      return await handle(request, request.headers.get('CF-Connecting-IP'));
    } catch {
      return new Response('Internal Server Error', { status: 500 });
    }
  },
};
