/**
 * onFinished is the Web platform's "the response is over": it returns a Response that runs `done`
 * exactly once, when the runtime has read the body to its end (finished) or cancelled it (the client
 * went away; `aborted: true`), or when the body's own stream fails (`aborted: true`). A Response
 * without a body is over at once: `done` runs before onFinished returns and the Response itself is
 * returned untouched (a 101 WebSocket upgrade, a 204, a redirect keep whatever the runtime attached).
 * So is the answer to a HEAD request, when that `request` is given: its body never goes out, and
 * runtimes drop it without reading it (Hono answers HEAD with the GET route's Response minus its
 * body, neither read nor cancelled: `done` would never run) or cancel it (Bun: it would read as
 * aborted). Pass the request whenever you have it.
 *
 * The returned Response has the same status, status text and headers (a copy, so writable) and a
 * body that hands on the original's chunks as the runtime asks for them: one read of the original per
 * read of the copy, nothing read ahead, so streaming and backpressure are the original's. Its
 * cancellation is passed on to the original with its reason.
 *
 * `done` sees a Finished: the status, `aborted`, and `contentLength`, which is the Content-Length
 * header when there is one, otherwise the bytes the runtime read when it read them all (0 for no
 * body), and undefined for a body without the header that did not finish. An error thrown by `done`
 * never touches the response: it is rethrown on a later microtask, like an error in an event listener.
 *
 * Adapters hand it their settle (countOutcome, settle) and, for leases, their release: whatever must
 * happen once per response, after it, on Bun, Deno, Workers, Next.js and Node's fetch servers alike.
 */
import type { Finished } from '@ratekeeper/core/adapter';

/** onFinished returns `response`, or a copy of it, whose end runs `done` once (see above). */
export function onFinished(response: Response, done: (finished: Finished) => void, request?: Request): Response {
  const declared = contentLengthOf(response.headers);
  const status = response.status;
  const body = response.body;
  if (body === null || request?.method === 'HEAD') {
    call(done, { status, aborted: false, contentLength: declared ?? (body === null ? 0 : undefined) });
    return response;
  }
  const reader = body.getReader();
  let bytes = 0;
  let over = false;
  const end = (aborted: boolean): void => {
    if (over) return;
    over = true;
    call(done, { status, aborted, contentLength: declared ?? (aborted ? undefined : bytes) });
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          end(true);
          controller.error(error);
          return;
        }
        if (chunk.done) {
          controller.close();
          end(false);
          return;
        }
        bytes += chunk.value.byteLength ?? 0;
        controller.enqueue(chunk.value);
      },
      cancel(reason) {
        end(true);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, { status, statusText: response.statusText, headers: response.headers });
}

/** call runs `done`; its error is the caller's bug, reported like an event listener's, never the response's. */
function call(done: (finished: Finished) => void, finished: Finished): void {
  try {
    done(finished);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/** contentLengthOf reads a Content-Length header as a whole number, undefined when absent or unusable. */
function contentLengthOf(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  if (value === null) return undefined;
  const length = Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
