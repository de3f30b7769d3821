/**
 * Mutant: a wrapper that calls `done` when it reads the body's end and again when the original's
 * reader closes (the Web twin of settling on Node's 'finish' and 'close'): every completed response
 * is settled twice. The completion check must catch it.
 */
import type { Finished } from '@ratekeeper/core/adapter';

export function settlesTwice(response: Response, done: (finished: Finished) => void): Response {
  if (response.body === null) return (done({ status: response.status, aborted: false, contentLength: 0 }), response);
  const reader = response.body.getReader();
  let bytes = 0;
  void reader.closed.then(() => done({ status: response.status, aborted: false, contentLength: bytes }));
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await reader.read();
      if (chunk.done) return (controller.close(), done({ status: response.status, aborted: false, contentLength: bytes }));
      bytes += chunk.value.byteLength;
      controller.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(stream, response);
}
