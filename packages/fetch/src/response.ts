/**
 * withHeaders writes headers onto a Response the application (or a handler) built. A Response's
 * headers can be immutable (one returned by `fetch()`, `Response.redirect()`, `Response.error()`):
 * writing to them throws a TypeError before anything changes, and the Response is then copied (same
 * status, status text, headers and body stream, not read) and written on the copy.
 */
export function withHeaders(response: Response, write: (headers: Headers) => void): Response {
  try {
    write(response.headers);
    return response;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  const copy = new Response(response.body, response);
  write(copy.headers);
  return copy;
}
