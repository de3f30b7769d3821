/**
 * remoteFailureCause names why a remote store's server could not decide, for its one-time warning
 * (./failure-warning.ts), from the failure alone and whether the server ever answered this process's
 * store (Remote's `heard`). One code per cause, so each is told once per process:
 *
 *   RATEKEEPER_<S>_NOT_CONNECTED  the server has never answered this store, and a call failed: the
 *                                 client refused (ECONNREFUSED), an unknown host, no route, a connect
 *                                 timeout, or silence for timeoutMs. The sentence names which.
 *   RATEKEEPER_<S>_REFUSED        the server answered before, and now refuses connections (stopped,
 *                                 restarting).
 *   RATEKEEPER_<S>_CONNECTION     the server answered before, and the connection was lost or failed.
 *   RATEKEEPER_<S>_TIMEOUT        the server answered before, and then nothing for timeoutMs.
 *   RATEKEEPER_<S>_REPLY          the server answered this call with an error (bad credentials, a
 *                                 missing privilege, …): it is up; the error's code is named.
 *   (none)                        'unavailable': the breaker was open, the call was not sent; it only
 *                                 follows a failure already told.
 *
 * The sentence names the error's code (ECONNREFUSED, a SQLSTATE, a driver's code) but never its
 * message, which may carry a statement's values.
 */
import type { FailureInfo } from './failure.js';
import type { FailureCause } from './failure-warning.js';

/** RemoteServer names a store's server in its warnings. */
export interface RemoteServer {
  /** The code's middle part: 'POSTGRES' gives RATEKEEPER_POSTGRES_REFUSED. */
  readonly code: string;
  /** The server as the sentence names it: 'PostgreSQL'. */
  readonly name: string;
  /** What the user handed the store to reach it: 'pool', 'client'. */
  readonly client: string;
}

/** The connect errors that say why a connection could not be made at all, each with its sentence. */
const CONNECT: Readonly<Record<string, (s: RemoteServer) => string>> = {
  ECONNREFUSED: (s) => `the connection was refused (ECONNREFUSED): is ${s.name} running at the host and port the ${s.client} was given?`,
  ENOTFOUND: (s) => `the host name did not resolve (ENOTFOUND): check the host the ${s.client} was given`,
  EAI_AGAIN: (s) => `the host name did not resolve (EAI_AGAIN): check the host the ${s.client} was given, and DNS`,
  EHOSTUNREACH: (s) => `there is no route to the host the ${s.client} was given (EHOSTUNREACH)`,
  ENETUNREACH: (s) => `there is no route to the host the ${s.client} was given (ENETUNREACH)`,
  ETIMEDOUT: (s) => `connecting timed out (ETIMEDOUT): is the host the ${s.client} was given reachable from here?`,
  CONNECT_TIMEOUT: (s) => `connecting timed out (CONNECT_TIMEOUT): is the host the ${s.client} was given reachable from here?`,
};

/** codeOf is the error's code as a string (a Node code, a SQLSTATE, a driver's code), if it has one. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : undefined;
}

/** remoteFailureCause is the cause of `info` on `server`; `heard` tells whether the server ever answered this store. */
export function remoteFailureCause(server: RemoteServer, info: FailureInfo, timeoutMs: number, heard: boolean): FailureCause | undefined {
  const prefix = `RATEKEEPER_${server.code}_`;
  const code = codeOf(info.error);
  switch (info.reason) {
    case 'unavailable':
      return undefined;
    case 'reply':
      return { code: `${prefix}REPLY`, text: `${server.name} answered with an error${code === undefined ? '' : ` (${code})`}` };
    case 'timeout':
      if (!heard)
        return {
          code: `${prefix}NOT_CONNECTED`,
          text: `${server.name} has never answered this store: nothing for ${timeoutMs} ms (timeoutMs); is the host the ${server.client} was given reachable?`,
        };
      return { code: `${prefix}TIMEOUT`, text: `${server.name} answered nothing for ${timeoutMs} ms (timeoutMs)` };
    default: {
      const connect = code === undefined ? undefined : CONNECT[code];
      if (!heard) {
        const why = connect?.(server) ?? `the connection failed${code === undefined ? '' : ` (${code})`}`;
        return { code: `${prefix}NOT_CONNECTED`, text: `the ${server.client} never connected to ${server.name}: ${why}` };
      }
      if (code === 'ECONNREFUSED') return { code: `${prefix}REFUSED`, text: `${server.name} refused the connection (ECONNREFUSED): it stopped or is restarting` };
      return { code: `${prefix}CONNECTION`, text: `the connection to ${server.name} was lost or could not be made${code === undefined ? '' : ` (${code})`}` };
    }
  }
}
