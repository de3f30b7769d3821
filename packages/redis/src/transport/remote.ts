/**
 * RedisRemote: RedisStore's calls on core's Remote (@ratekeeper/core/store), which bounds every call,
 * judges Redis by its silence while this process listens, keeps the breaker and never lets a call be
 * decided both locally and by Redis (its header states the guarantees). What is Redis's own is here:
 *
 * - A script call is ['EVALSHA', sha, numkeys, ...keys, ...args, deadline]: the last argument is set on
 *   every attempt to the deadline Remote gives (String(deadline), kept for the calls of one
 *   millisecond), on a copy of the array from the second attempt on (the client may still hold the
 *   first). A script starting at or after its deadline answers 'expired': a non-positive integer, its
 *   server time negated (lua/prelude.ts).
 * - NOSCRIPT (a restart, a failover, SCRIPT FLUSH) is answered once by sending the script's source with
 *   EVAL instead.
 * - A rejection whose message starts with an upper-case code (ERR, OOM, WRONGTYPE, NOSCRIPT, BUSY …) is
 *   an error reply: Redis is up, only this call failed. Anything else is the connection failing.
 */
import { Failure, type Interpret, Remote, type Request } from '@ratekeeper/core/store';
import type { Send } from './client.js';
import type { Script } from '../lua/scripts.js';

export type { Interpret };

/** A Redis error reply starts with an upper-case code: ERR, OOM, WRONGTYPE, NOSCRIPT, BUSY … */
const REPLY_CODE = /^[A-Z]{2,}[A-Z_]*(?: |$)/;

/** failureOf classifies a client's rejection. */
export function failureOf(error: unknown): Failure {
  const message = error instanceof Error ? error.message : '';
  return new Failure(REPLY_CODE.test(message) ? 'reply' : 'connection', error);
}

/** isNoScript tells whether Redis lacks the script (after a restart, a failover or SCRIPT FLUSH). */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** expiredAt reads a script's 'expired' answer: its server time, negated (never a decision's reply). */
function expiredAt(reply: unknown): number | undefined {
  return typeof reply === 'number' && reply <= 0 ? -reply : undefined;
}

/** One call to Redis: a script (with a deadline) or a plain command. */
class RedisRequest {
  readonly deadlined: boolean;
  #command: string[];
  readonly #firstKey: string;
  #script: Script | undefined;
  readonly #wire: RedisRemote;

  constructor(wire: RedisRemote, command: string[], firstKey: string, script: Script | undefined) {
    this.#wire = wire;
    this.#command = command;
    this.#firstKey = firstKey;
    this.#script = script;
    this.deadlined = script !== undefined;
  }

  send(deadline: number, again: boolean): Promise<unknown> {
    if (again) this.#command = this.#command.slice();
    if (this.deadlined) this.#command[this.#command.length - 1] = this.#wire.deadlineText(deadline);
    return this.#wire.send(this.#command, this.#firstKey);
  }

  /** retry answers NOSCRIPT once, by sending the script's source with EVAL. */
  retry(error: unknown): boolean {
    const script = this.#script;
    if (script === undefined || !isNoScript(error)) return false;
    this.#script = undefined;
    this.#command = this.#command.slice();
    this.#command[0] = 'EVAL';
    this.#command[1] = script.source;
    return true;
  }
}

export class RedisRemote {
  readonly remote: Remote;
  readonly send: Send;
  #lastDeadline = 0;
  #lastDeadlineText = '0';

  constructor(send: Send, timeoutMs: number, probeIntervalMs: number) {
    this.send = send;
    this.remote = new Remote({ timeoutMs, probeIntervalMs, failureOf, expiredAt });
  }

  /** down tells whether the breaker is open. */
  get down(): boolean {
    return this.remote.down;
  }

  /** onRecover runs `callback` each time the breaker closes. */
  onRecover(callback: () => void): void {
    this.remote.onRecover(callback);
  }

  /**
   * eval runs a script: `command` is ['EVALSHA', sha, numkeys, ...keys, ...args, deadline], the last
   * argument a placeholder set on every send. `interpret` runs once, when the call ends.
   */
  eval<T>(script: Script, command: string[], firstKey: string, interpret: Interpret<T>): Promise<T> {
    return this.remote.run(new RedisRequest(this, command, firstKey, script), interpret);
  }

  /** request is a script call as core's Remote runs it (for callers that run it themselves, such as the peer count). */
  request(script: Script, command: string[], firstKey: string): Request {
    return new RedisRequest(this, command, firstKey, script);
  }

  /** command runs one plain command on `key`, resolving to `interpret` of the reply or of a Failure. */
  command<T>(args: string[], key: string, interpret: Interpret<T>): Promise<T> {
    return this.remote.run(new RedisRequest(this, args, key, undefined), interpret);
  }

  /** deadlineText is String(deadline), kept for the calls sent in the same millisecond. */
  deadlineText(deadline: number): string {
    if (deadline !== this.#lastDeadline) {
      this.#lastDeadline = deadline;
      this.#lastDeadlineText = String(deadline);
    }
    return this.#lastDeadlineText;
  }
}
