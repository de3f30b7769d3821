/**
 * causeOf reads why Redis could not decide, for the one-time warning a RedisStore gives (core's
 * failureWarner, which writes the sentence around it): from the client's own state first (a node-redis client never `connect()`ed is not
 * open; an ioredis client made with `lazyConnect` and no offline queue is still waiting), then from the
 * failure (refused, timed out, closed, an error reply). Each cause has its own code, so each is told
 * once per process; the sentence names the fix and how to silence the warning. Never throws.
 */
import type { FailureCause as Cause, FailureInfo } from '@ratekeeper/core/store';

const errorText = (error: unknown): string => {
  const e = error as { message?: unknown; code?: unknown } | null | undefined;
  return `${typeof e?.code === 'string' ? e.code : ''} ${typeof e?.message === 'string' ? e.message : ''}`;
};

/** causeOf returns the cause to warn about, or undefined for a failure that only follows another ('unavailable'). */
export function causeOf(client: unknown, info: FailureInfo, timeoutMs: number): Cause | undefined {
  if (info.reason === 'unavailable') return undefined;
  const c = client as { isOpen?: unknown; status?: unknown } | null;
  const text = errorText(info.error);
  if (typeof c === 'object' && c !== null && c.isOpen === false) {
    return {
      code: 'RATEKEEPER_REDIS_NOT_CONNECTED',
      text: 'the node-redis client is not connected: call `await client.connect()` before the first request (a client made with createClient() never connects by itself)',
    };
  }
  if (/offline ?queue/i.test(text) || (typeof c === 'object' && c !== null && c.status === 'wait')) {
    return {
      code: 'RATEKEEPER_REDIS_NOT_CONNECTED',
      text: 'the ioredis client is not connected yet and cannot queue commands (lazyConnect with enableOfflineQueue: false): call `await client.connect()` before the first request',
    };
  }
  if (info.reason === 'timeout') return { code: 'RATEKEEPER_REDIS_TIMEOUT', text: `Redis answered nothing for ${timeoutMs} ms (timeoutMs)` };
  if (info.reason === 'reply') return { code: 'RATEKEEPER_REDIS_REPLY', text: 'Redis answered with an error' };
  if (/ECONNREFUSED/.test(text)) return { code: 'RATEKEEPER_REDIS_REFUSED', text: 'the connection to Redis was refused: is Redis running at the address the client was given?' };
  return { code: 'RATEKEEPER_REDIS_CONNECTION', text: 'the client could not send the command (connection closed or lost)' };
}
