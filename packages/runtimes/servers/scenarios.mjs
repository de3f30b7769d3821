// The named scenarios every runtime server serves, so that one HTTP suite (test/suite.ts) checks the
// adapters on runtimes whose process the test cannot reach into: options cannot cross a process
// boundary, so each scenario is a fixed set of options, built afresh for every instance id in the
// path. Plain JavaScript, so Bun, Deno, Node and (bundled) workerd load it as it is.
//
//   GET /__clock?advance=<ms>         moves the ManualClock every scenario of this process runs on
//   GET /__clock?align=<ms>           moves it on to the next multiple of ms (a window boundary)
//   GET /f/<scenario>/<id>            @ratekeeper/fetch around a handler answering {"ip": ...}
//   GET /h/<scenario>/<id>            @ratekeeper/hono in a Hono app answering {"ip", "remaining"}
//   ...?status=N / ?bytes=N / ?stream  the route answers that status, N bytes, or one chunk then stalls
//   ...?state / ?release               the outcome scenarios (outcome, settle, aborted, gone, delay,
//                                      delay-deaf): their record (outcomes seen, lookups waiting or done,
//                                      aborts, route runs, key k's remaining and whether it would admit
//                                      one more now) and, for gone, releasing the held key lookups
//
// delay is mode 'delay' (a bucket of 1 a second, held up to 1000 ms); delay-deaf the same on a fetch
// check handed a signal that never calls its listeners (a mutant: the wait of a client gone stays).
//
// The address: the runtime's own (`ip` passed in for fetch, `getConnInfo` for Hono), except in the
// scenarios named header-ip*, which read x-test-ip as a user behind a trusted proxy would read its
// header, and cloudflare, which reads it with ipFrom('cloudflare') (and leftmost-hop, a mutant: the
// leftmost X-Forwarded-For entry, which the client writes). Errors are left to the runtime's error
// handler (the server script), as an app would.
import { CompositeLimiter, FixedWindowLimiter, ManualClock, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { ipFrom, rateLimit as fetchRateLimit } from '@ratekeeper/fetch';
import { rateLimit as honoRateLimit } from '@ratekeeper/hono';
import { Hono } from 'hono';

export const SECRET = 'redis://admin:hunter2@10.0.0.7:6379';

/** async wraps a limiter so that every consume is a promise rewritten by `decide`, as a remote store's is. */
const remote = (inner, decide) => ({
  mode: 'async',
  policies: inner.policies,
  consume: async (key, cost) => decide(await inner.consume(key, cost)),
  peek: async (key, cost) => inner.peek(key, cost),
  allow: async (key, cost) => inner.allow(key, cost),
  reset: async (key) => inner.reset(key),
});

const fromHeader = (readHeader) => ({ ip: readHeader });

/** leftmostHop is the mutant address: X-Forwarded-For's leftmost entry, which the client writes. */
const leftmostHop = (request) => request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() || undefined;

/** record is an outcome scenario's state, read by the test through `?state`. */
function record(limiter) {
  const held = [];
  const state = { outcomes: [], waiting: 0, keyed: 0, aborted: 0, ran: 0 };
  return {
    state,
    limiter,
    /** seen records an outcome and answers `answer`. */
    seen: (outcome, answer) => (state.outcomes.push(outcome), answer),
    /** key holds the lookup until `release`, noting when the client's Request signal aborts. */
    key: (r) =>
      new Promise((resolve) => {
        const request = r instanceof Request ? r : r.req.raw;
        request.signal.addEventListener('abort', () => state.aborted++);
        state.waiting++;
        held.push(() => resolve('k'));
      }),
    /** watch keys the request 'k' at once, noting the lookup and when its signal aborts. */
    watch: (r) => {
      const request = r instanceof Request ? r : r.req.raw;
      request.signal.addEventListener('abort', () => state.aborted++);
      state.keyed++;
      return 'k';
    },
    release: () => {
      state.waiting = 0;
      for (const go of held.splice(0)) go();
    },
    report: () => {
      const now = limiter.peek('k');
      return Response.json({ ...state, remaining: now.remaining, allowed: now.allowed });
    },
  };
}

/** outcomeScenario returns the options of an outcome scenario, with its record. */
function outcomeScenario(name, clock) {
  const r = record(new FixedWindowLimiter({ limit: name === 'settle' ? 10 : name === 'gone' ? 5 : 2, windowMs: 60_000, name: 'w', clock }));
  const key = name === 'gone' ? r.key : () => 'k';
  if (name === 'outcome') return { limiter: r.limiter, key, countOutcome: (o) => r.seen(o, o.status < 400), record: r };
  if (name === 'settle') return { limiter: r.limiter, key, settle: (o) => r.seen(o, Math.ceil((o.contentLength ?? 0) / 100)), record: r };
  if (name === 'aborted') return { limiter: r.limiter, key, countOutcome: (o) => r.seen(o, !o.aborted), record: r };
  return { limiter: r.limiter, key, record: r };
}

/** deaf is a signal that tells whether `signal` aborted but never calls a listener (the delay-deaf mutant). */
const deaf = (signal) => ({
  get aborted() {
    return signal.aborted;
  },
  addEventListener: () => {},
  removeEventListener: () => {},
});

/** delayScenario: mode 'delay' on a bucket of 1 a second, held up to 1000 ms; `mutant` hands the fetch check a deaf signal. */
function delayScenario(clock, mutant) {
  const r = record(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, name: 'b', clock }));
  const raw = mutant ? (request) => ({ signal: deaf(request.signal) }) : undefined;
  return { limiter: r.limiter, key: r.watch, mode: 'delay', maxDelayMs: 1000, record: r, raw };
}

/** answer is the route's Response: `?status=N`, `?bytes=N`, `?stream` (one chunk, then nothing until cancelled), else `json`. */
function answer(url, json) {
  const q = url.searchParams;
  if (q.has('stream')) {
    let sent = false;
    const body = new ReadableStream({ pull: (c) => (sent ? new Promise(() => {}) : ((sent = true), c.enqueue(new TextEncoder().encode('first chunk')))) }, { highWaterMark: 0 });
    return new Response(body);
  }
  if (!q.has('status') && !q.has('bytes')) return Response.json(json);
  return new Response('x'.repeat(Number(q.get('bytes') ?? 2)), { status: Number(q.get('status') ?? 200) });
}

/** options returns the adapter options of a scenario; `extra` adds runtime-specific ones (redis). */
function options(name, clock, extra) {
  const bucket = (capacity) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock });
  switch (name) {
    case 'bucket':
      return { limiter: bucket(3) };
    case 'default':
      return { algorithm: 'token-bucket', clock };
    case 'composite':
      return {
        limiter: new CompositeLimiter([
          new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'burst', clock }),
          new SlidingWindowLimiter({ limit: 3, windowMs: 60_000, name: 'minute', clock }),
        ]),
      };
    case 'header-ip':
      return { limiter: bucket(1), header: true };
    case 'header-ip-skip':
      return { limiter: bucket(1), header: true, missingIp: 'skip' };
    case 'cloudflare':
      return { limiter: bucket(3), from: ipFrom('cloudflare') };
    case 'leftmost-hop':
      return { limiter: bucket(3), from: leftmostHop };
    case 'closed':
      return { limiter: remote(bucket(5), (d) => ({ ...d, allowed: false, failure: 'closed' })) };
    case 'secret':
      return { limiter: remote(bucket(5), () => Promise.reject(new Error(`connect ECONNREFUSED ${SECRET}`))) };
    case 'outcome':
    case 'settle':
    case 'aborted':
    case 'gone':
      return outcomeScenario(name, clock);
    case 'delay':
    case 'delay-deaf':
      return delayScenario(clock, name === 'delay-deaf');
    default:
      if (extra?.[name] !== undefined) return extra[name](clock);
      return undefined;
  }
}

/**
 * scenarios builds the router. `getConnInfo` is the runtime's Hono helper; `extra` maps further
 * scenario names to (clock) => options.
 */
export function scenarios({ getConnInfo, extra } = {}) {
  const clock = new ManualClock(1_000_000);
  const made = new Map();

  function make(flavor, name, id) {
    const key = `${flavor}/${name}/${id}`;
    if (made.has(key)) return made.get(key);
    const o = options(name, clock, extra);
    if (o === undefined) return undefined;
    const { header, from, record, raw, ...rest } = o;
    let handler;
    if (flavor === 'f') {
      const limit = fetchRateLimit(rest, raw);
      handler = async (request, ip) => {
        const address = from ? from(request) : header ? (request.headers.get('x-test-ip') ?? undefined) : ip;
        const limited = await limit(request, { ip: address });
        if (limited !== undefined) return limited;
        if (record !== undefined) record.state.ran++;
        return limit.headers(request, answer(new URL(request.url), { ip: address ?? null }));
      };
    } else {
      const source = from ? fromHeader((c) => from(c.req.raw)) : header ? fromHeader((c) => c.req.header('x-test-ip')) : { getConnInfo };
      const app = new Hono().basePath(`/h/${name}/${id}`);
      app.onError((_error, c) => c.text('Internal Server Error', 500)); // Hono's default, minus its console.error
      app.use(honoRateLimit({ ...source, ...rest }));
      app.get('/', (c) => {
        if (record !== undefined) record.state.ran++;
        const ip = source.ip ? (source.ip(c) ?? null) : (getConnInfo(c).remote.address ?? null);
        return answer(new URL(c.req.url), { ip, remaining: c.var.rateLimit?.remaining ?? null });
      });
      handler = (request, _ip, env) => app.fetch(request, env);
    }
    if (record !== undefined) {
      const limited = handler;
      handler = (request, ip, env) => {
        const q = new URL(request.url).searchParams;
        if (q.has('release')) record.release();
        return q.has('state') || q.has('release') ? record.report() : limited(request, ip, env);
      };
    }
    made.set(key, handler);
    return handler;
  }

  /** handle answers one request; `ip` is the runtime's client address, `env` what Hono's fetch takes. */
  return async function handle(request, ip, env) {
    const url = new URL(request.url);
    if (url.pathname === '/__clock') {
      clock.advance(Number(url.searchParams.get('advance') ?? 0));
      const align = Number(url.searchParams.get('align') ?? 0);
      if (align > 0) clock.set(Math.ceil(clock.now() / align) * align);
      return new Response(String(clock.now()));
    }
    const [, flavor, name, id] = url.pathname.replace(/\/$/, '').split('/');
    const handler = (flavor === 'f' || flavor === 'h') && name && id ? make(flavor, name, id) : undefined;
    if (handler === undefined) return new Response('Not Found', { status: 404 });
    return handler(request, ip, env);
  };
}
