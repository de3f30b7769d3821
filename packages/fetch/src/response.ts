/**
 * withHeaders writes headers onto a Response the application (or a handler) built. A Response's
 * headers can be immutable (one returned by `fetch()`, `Response.redirect()`, `Response.error()`):
 * writing to them throws a TypeError before anything changes, and the Response is then copied (same
 * status, status text, headers and body stream, not read) and written on the copy.
 */
export function withHeaders(response: Response, write: (headers: Headers) => void): Response;
/**
 * withHeaders, with `arg` handed to `write` beside the headers: a `write` built once (a module's or a
 * middleware's function) then needs no closure per response.
 */
export function withHeaders<T>(response: Response, write: (headers: Headers, arg: T) => void, arg: T): Response;
export function withHeaders<T>(response: Response, write: (headers: Headers, arg?: T) => void, arg?: T): Response {
  try {
    write(response.headers, arg);
    return response;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  const copy = new Response(response.body, response);
  write(copy.headers, arg);
  return copy;
}

/**
 * limitedStatus gives a limited-response handler's Response the limited status (429, 503 for a
 * 'closed' failure) when it came back with 200, the status of `new Response(body)`,
 * `Response.json(body)` and Hono's `c.text(body)` when none is given: a denial is never answered as a
 * success. Any other status the handler chose is kept. The copy keeps the headers and the body stream
 * (not read); its status text is left empty, the HTTP/2 default.
 */
export function limitedStatus(response: Response, status: number): Response {
  if (response.status !== 200) return response;
  return new Response(response.body, { status, headers: response.headers });
}
