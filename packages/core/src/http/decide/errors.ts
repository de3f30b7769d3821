/**
 * The two errors decide raises on a framework's error path, each carrying status 500 in both the
 * `status` (Koa, http-errors) and `statusCode` (Fastify, Express) spellings:
 * - MissingIpError: the default key found no usable client IP (missingIp: 'reject'); the message
 *   points at the framework's trust-proxy setting.
 * - RateLimiterError: the limiter failed to decide (its promise rejected, its consume threw, or it
 *   answered something that is not a Decision). The message is fixed text; what went wrong is kept as
 *   `cause` for logs, so no store's text (a connection string, a password) reaches a client even
 *   through a framework that shows error messages.
 */

export class MissingIpError extends Error {
  readonly status = 500;
  readonly statusCode = 500;
  constructor(owner: string) {
    super(`${owner}: the request has no usable client IP; check the framework's trust-proxy setting, give a key function, or set missingIp: 'skip'`);
    this.name = 'MissingIpError';
  }
}

export class RateLimiterError extends Error {
  readonly status = 500;
  readonly statusCode = 500;
  constructor(owner: string, cause: unknown) {
    super(`${owner}: the limiter failed to decide`, { cause });
    this.name = 'RateLimiterError';
  }
}
