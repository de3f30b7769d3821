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
 * - Functions (../lua/library.ts). While `functions` is on, a script that is also a function goes as
 *   FCALL of that function (same keys and arguments). A server that does not know the function (never
 *   loaded, a restart, FUNCTION FLUSH) answers it with the script's source by EVAL, while the library
 *   is loaded beside (FUNCTION LOAD, at most one at a time per library, never awaited by a call); a
 *   server without functions (Redis < 7: FCALL or FUNCTION is an unknown command), or one that refuses
 *   to load the library (an ACL, a managed service), turns `functions` off for good: every script then
 *   goes by EVALSHA, as on a server of before functions. A function Redis refuses for memory (maxmemory
 *   reached) goes again as its script, which may still decide without writing (a denial).
 * - A rejection whose message starts with an upper-case code (ERR, OOM, WRONGTYPE, NOSCRIPT, BUSY …) is
 *   an error reply: Redis is up, only this call failed. Anything else is the connection failing.
 */
import { Failure, type Interpret, Remote, type Request } from '@ratekeeper/core/store';
import type { Send } from './client.js';
import { type Callable, type Library, callableOf } from '../lua/library.js';
import type { Script } from '../lua/scripts.js';

export type { Interpret };

/** PROBE_KEY routes the breaker's PING on a cluster client that routes by key (any node answers it). */
const PROBE_KEY = 'ratekeeper:probe';

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

/** isMissingFunction tells whether Redis lacks the function called (never loaded, a restart, FUNCTION FLUSH). */
export function isMissingFunction(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('ERR Function not found');
}

/** isOutOfMemory tells whether Redis refused the call for memory (maxmemory reached, noeviction). */
function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('OOM');
}

/** lacksFunctions tells whether the server has no functions at all (Redis < 7: an unknown command). */
export function lacksFunctions(error: unknown): boolean {
  return error instanceof Error && /^ERR unknown command [`'"]?(?:FCALL|FUNCTION)/i.test(error.message);
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
  /** The function the command calls (FCALL), while it does. */
  #callable: Callable | undefined;
  readonly #wire: RedisRemote;

  constructor(wire: RedisRemote, command: string[], firstKey: string, script: Script | undefined) {
    this.#wire = wire;
    this.#command = command;
    this.#firstKey = firstKey;
    this.#script = script;
    this.deadlined = script !== undefined;
    const callable = script !== undefined && wire.functions ? callableOf(script) : undefined;
    if (callable !== undefined) {
      this.#callable = callable;
      command[0] = 'FCALL';
      command[1] = callable.name;
    }
  }

  send(deadline: number, again: boolean): Promise<unknown> {
    if (again) this.#command = this.#command.slice();
    if (this.deadlined) this.#command[this.#command.length - 1] = this.#wire.deadlineText(deadline);
    return this.#wire.send(this.#command, this.#firstKey);
  }

  /**
   * retry answers a missing function with the script's source (EVAL) while the library loads, a server
   * without functions and a function refused for memory with EVALSHA, and NOSCRIPT once with EVAL.
   */
  retry(error: unknown): boolean {
    const script = this.#script;
    if (script === undefined) return false;
    const callable = this.#callable;
    if (callable !== undefined) {
      this.#callable = undefined;
      if (lacksFunctions(error)) {
        this.#wire.functions = false;
        this.#swap('EVALSHA', script.sha);
        return true;
      }
      // Out of memory (maxmemory, noeviction), Redis refuses any function that may write before it runs;
      // a script runs, and its call that writes nothing (a denial) is still decided by Redis.
      if (isOutOfMemory(error)) {
        this.#swap('EVALSHA', script.sha);
        return true;
      }
      if (!isMissingFunction(error)) return false;
      this.#wire.load(callable.library, this.#firstKey);
    } else if (!isNoScript(error)) {
      return false;
    }
    this.#script = undefined;
    this.#swap('EVAL', script.source);
    return true;
  }

  #swap(command: string, first: string): void {
    this.#command = this.#command.slice();
    this.#command[0] = command;
    this.#command[1] = first;
  }
}

export class RedisRemote {
  readonly remote: Remote;
  readonly send: Send;
  /** Scripts that are also functions go as FCALL (see the file's opening); off for good once the server shows it has none. */
  functions: boolean;
  /** The libraries being loaded (one FUNCTION LOAD at a time each). */
  readonly #loading = new Set<string>();
  #lastDeadline = 0;
  #lastDeadlineText = '0';

  constructor(send: Send, timeoutMs: number, probeIntervalMs: number, functions = false) {
    this.send = send;
    this.functions = functions;
    // The breaker's probe is a PING in the background, never a user's call (core's Remote).
    const probe = (): Request => ({ deadlined: false, send: () => this.send(['PING'], PROBE_KEY) });
    this.remote = new Remote({ timeoutMs, probeIntervalMs, failureOf, expiredAt, probe });
  }

  /**
   * load sends FUNCTION LOAD of `library` (on `key`'s node), unless one is on its way. A library loaded
   * meanwhile by another process is as good; a refusal (an error reply: no functions, an ACL) turns
   * functions off; a lost connection leaves them on, for the next missing function to load again.
   */
  load(library: Library, key: string): void {
    if (this.#loading.has(library.name)) return;
    this.#loading.add(library.name);
    this.send(['FUNCTION', 'LOAD', library.source], key).then(
      () => this.#loading.delete(library.name),
      (error: unknown) => {
        this.#loading.delete(library.name);
        const message = error instanceof Error ? error.message : '';
        if (failureOf(error).reason === 'reply' && !message.includes('already exists')) this.functions = false;
      },
    );
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
