/**
 * Mutant: a wrapper built on a TransformStream's flush, which runs when the body ends but not when the
 * runtime cancels it: a client gone mid-stream is never an outcome (on Node the twin bug listens to
 * 'finish' alone). The abort check must catch it.
 */
import type { Finished } from '@ratekeeper/core/adapter';

export function silentOnCancel(response: Response, done: (finished: Finished) => void): Response {
  if (response.body === null) return (done({ status: response.status, aborted: false, contentLength: 0 }), response);
  let bytes = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
    flush: () => done({ status: response.status, aborted: false, contentLength: bytes }),
  });
  return new Response(response.body.pipeThrough(counter), response);
}
