/**
 * onFinished, the Web "response is over", and countOutcome / settle on it over real HTTP
 * (@hono/node-server): `done` runs once when the runtime has read the body to its end (mutant: a
 * wrapper that settles twice), once with aborted: true when the client goes away mid-stream (mutant:
 * a wrapper silent on cancel), at once for a body-less Response and for the answer to a HEAD request
 * (both returned untouched); the copy keeps
 * status, status text and headers and reads the original only as it is read (backpressure). Through
 * rateLimit: an aborted response and a handler that throws are outcomes, and a failing hook is a
 * process warning, never an error or an unhandled rejection.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onFinished, rateLimit } from '../src/index.js';
import { serveFetch } from './helpers.js';
import { settlesTwice } from './mutants/settles-twice.js';
import { silentOnCancel } from './mutants/silent-on-cancel.js';
import { type Finished } from '@ratekeeper/core/adapter';

type Wrap = typeof onFinished;
const KB = new Uint8Array(1000).fill(120);
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise(setImmediate);
};

/** source is a body of `chunks` 1,000-byte chunks, each made only when pulled; after them it stalls (stall) or ends. */
function source(chunks: number, stall = false) {
  let pulls = 0;
  let cancelled!: () => void;
  const cancel = new Promise<void>((resolve) => (cancelled = resolve));
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulls++ < chunks) controller.enqueue(KB);
        else if (stall) return new Promise(() => {});
        else controller.close();
      },
      cancel: () => cancelled(),
    },
    { highWaterMark: 0 },
  );
  return { stream, pulls: () => pulls, cancel };
}

/** completed serves one streamed 203 response of 3,000 bytes through `wrap` and answers what `done` saw. */
async function completed(wrap: Wrap): Promise<Finished[]> {
  const seen: Finished[] = [];
  const { http } = serveFetch(async () => wrap(new Response(source(3).stream, { status: 203, statusText: 'Partial', headers: { 'x-kept': 'yes' } }), (f) => seen.push(f)));
  const res = await http.get('/').buffer(true);
  expect([res.status, res.headers['x-kept'], res.text.length]).toEqual([203, 'yes', 3000]);
  await turns();
  return seen;
}

/** abortedMidStream serves a response that sends 1,000 bytes then stalls; the client reads them and leaves. */
async function abortedMidStream(wrap: Wrap): Promise<Finished[]> {
  const seen: Finished[] = [];
  const body = source(1, true);
  const { server } = serveFetch(async () => wrap(new Response(body.stream), (f) => seen.push(f)));
  await leaveAfterFirstChunk(server);
  await body.cancel;
  await turns();
  return seen;
}

/** leaveAfterFirstChunk sends GET / and destroys the connection once the first body bytes arrive. */
async function leaveAfterFirstChunk(server: import('node:http').Server): Promise<void> {
  if (!server.listening) await new Promise((done) => server.once('listening', done));
  await new Promise<void>((done) => {
    const client = httpRequest({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, (res) => {
      res.once('data', () => (client.destroy(), done()));
    });
    client.on('error', () => {});
    client.end();
  });
}

describe('onFinished', () => {
  it('runs done once when the runtime has read the body to its end, with the bytes it read', async () => {
    expect(await completed(onFinished)).toEqual([{ status: 203, aborted: false, contentLength: 3000 }]);
  });

  it('the same check catches a wrapper that settles twice (mutant)', async () => {
    expect(await completed(settlesTwice)).toHaveLength(2);
  });

  it('runs done once with aborted: true when the client leaves mid-stream, the cancel passed on to the body', async () => {
    expect(await abortedMidStream(onFinished)).toEqual([{ status: 200, aborted: true, contentLength: undefined }]);
  });

  it('the same check catches a wrapper that is silent on cancel (mutant)', async () => {
    expect(await abortedMidStream(silentOnCancel)).toEqual([]);
  });

  it('reads the original only as the copy is read: one pull per read, nothing ahead', async () => {
    const body = source(3);
    const seen: Finished[] = [];
    const reader = onFinished(new Response(body.stream), (f) => seen.push(f)).body!.getReader();
    const pulls = [body.pulls()];
    for (let i = 0; i < 3; i++) pulls.push((await reader.read(), body.pulls()));
    expect([pulls, seen]).toEqual([[0, 1, 2, 3], []]);
    expect((await reader.read()).done).toBe(true);
    expect(seen).toEqual([{ status: 200, aborted: false, contentLength: 3000 }]);
  });

  it('is over at once for a body-less Response, which it returns untouched', () => {
    const seen: Finished[] = [];
    const response = new Response(null, { status: 204 });
    expect(onFinished(response, (f) => seen.push(f))).toBe(response);
    expect(seen).toEqual([{ status: 204, aborted: false, contentLength: 0 }]);
  });

  it('is over at once for the answer to a HEAD request, whose body never goes out: returned untouched', () => {
    const seen: Finished[] = [];
    const head = new Request('http://localhost/', { method: 'HEAD' });
    for (const headers of [{}, { 'content-length': '42' }]) {
      const response = new Response('never sent', { headers });
      expect(onFinished(response, (f) => seen.push(f), head)).toBe(response);
    }
    expect(seen).toEqual([
      { status: 200, aborted: false, contentLength: undefined },
      { status: 200, aborted: false, contentLength: 42 },
    ]);
  });

  it('reports a body whose stream fails as aborted, and the Content-Length header when there is one', async () => {
    const broken = new ReadableStream({ pull: (c) => c.error(new Error('disk gone')) });
    const seen: Finished[] = [];
    const copy = onFinished(new Response(broken, { headers: { 'content-length': '512' } }), (f) => seen.push(f));
    await expect(copy.arrayBuffer()).rejects.toThrow('disk gone');
    expect(seen).toEqual([{ status: 200, aborted: true, contentLength: 512 }]);
  });
});

describe('countOutcome and settle through rateLimit', () => {
  afterEach(() => void vi.restoreAllMocks());
  const window = (limit: number) => new FixedWindowLimiter({ limit, windowMs: 60_000, name: 'w', clock: new ManualClock(0) });
  const ip = () => '192.0.2.1';

  it('sees a response the client left mid-stream as an outcome with aborted: true, and gives it back', async () => {
    const limiter = window(2);
    const seen: Finished[] = [];
    const body = source(1, true);
    const limit = rateLimit({ limiter, key: () => 'k', countOutcome: (o) => (seen.push(o), !o.aborted) });
    const { server } = serveFetch(limit.wrap(() => new Response(body.stream), ip));
    await leaveAfterFirstChunk(server);
    await body.cancel;
    await turns();
    expect([seen, limiter.peek('k').remaining]).toEqual([[{ status: 200, aborted: true, contentLength: undefined }], 1]);
  });

  it('settles a handler that throws as the 500 the runtime answers', async () => {
    const limiter = window(2);
    const limit = rateLimit({ limiter, key: () => 'k', countOutcome: (o) => o.status < 400 });
    const { http } = serveFetch(
      limit.wrap(() => {
        throw new Error('route broke');
      }, ip),
    );
    vi.spyOn(console, 'error').mockImplementation(() => undefined); // @hono/node-server logs the error
    expect((await http.get('/')).status).toBe(500);
    expect(limiter.peek('k').remaining).toBe(1);
  });

  it('turns a hook that throws or rejects into a process warning: no error, no unhandled rejection', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const thrown = rateLimit({
        limiter: window(5),
        key: () => 'a',
        countOutcome: () => {
          throw new Error('meter down');
        },
      });
      const rejected = rateLimit({ limiter: window(5), key: () => 'b', settle: () => Promise.reject(new Error('billing down')) });
      for (const limit of [thrown, rejected]) {
        const { http } = serveFetch(limit.wrap(() => new Response('ok'), ip));
        expect((await http.get('/')).status).toBe(200);
      }
      await turns();
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      'rateLimit: countOutcome or settle failed after the response: Error: meter down',
      'rateLimit: countOutcome or settle failed after the response: Error: billing down',
    ]);
    expect(unhandled).toEqual([]);
  });

  it('wraps nothing when neither option is given', async () => {
    const limit = rateLimit({ limiter: window(5), key: () => 'k' });
    const [request, response] = [new Request('http://localhost/'), new Response('ok')];
    expect(await limit(request, { ip: '192.0.2.1' })).toBeUndefined();
    expect(limit.decision(request)?.allowed).toBe(true);
    expect(limit.finish(request, response)).toBe(response);
    expect(limit.headers(request, response)).toBe(response);
  });
});
