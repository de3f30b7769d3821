/**
 * Helpers for the HTTP tests: a header recorder standing in for a framework's response, a limiter
 * that counts what reaches it (the only way to prove a request was not counted), and the Go-style
 * table runner for header fields at fixed instants on a ManualClock.
 */
import { EventEmitter } from 'node:events';
import type { Decision, HeaderSetter, ManualClock, RateLimiter } from '../../src/index.js';
import { type NodeResponse } from '../../src/adapter.js';

/** Recorded headers in the order they were set, as [name, value] pairs. */
export type Headers = [string, string][];

export function recorder(): { readonly headers: Headers; readonly set: HeaderSetter<Headers> } {
  return { headers: [], set: (res, name, value) => void res.push([name, value]) };
}

/** header reads one recorded header, or undefined. */
export function header(headers: Headers, name: string): string | undefined {
  return headers.find(([n]) => n === name)?.[1];
}

export interface Counted {
  readonly limiter: RateLimiter;
  /** Every consume call that reached the limiter, as [key, cost]. */
  readonly calls: [string, number][];
}

/**
 * counting wraps a real limiter, recording each consume; 'async' answers with promises as a remote
 * store would, and `fail` makes every consume reject with that error instead (a broken store).
 */
export function counting(inner: RateLimiter<'sync'>, mode: 'sync' | 'async' = 'sync', fail?: Error): Counted {
  const calls: [string, number][] = [];
  const later = <T>(value: () => T) => (mode === 'sync' ? value() : fail === undefined ? Promise.resolve().then(value) : Promise.reject(fail));
  const limiter = {
    mode,
    policies: inner.policies,
    consume: (key: string, cost = 1) => (calls.push([key, cost]), later(() => inner.consume(key, cost))),
    peek: (key: string, cost = 1) => later(() => inner.peek(key, cost)),
    allow: (key: string, cost = 1) => later(() => inner.allow(key, cost)),
    reset: (key: string) => later(() => inner.reset(key)),
  };
  return { limiter: limiter as RateLimiter, calls };
}

export interface FieldRow {
  /** Milliseconds after the table's origin. */
  readonly at: number;
  readonly cost?: number;
  /** The RateLimit field. */
  readonly limit: string;
  /** The Retry-After value, or undefined for none. */
  readonly retryAfter: string | undefined;
}

/** runFields consumes one row at a time and compares the fields each decision gives, reporting every mismatch. */
export function runFields(
  limiter: RateLimiter<'sync'>,
  clock: ManualClock,
  origin: number,
  rows: readonly FieldRow[],
  fields: (d: Decision) => Omit<FieldRow, 'at' | 'cost'>,
): Decision[] {
  const failures: string[] = [];
  const decisions = rows.map((row, i) => {
    clock.set(origin + row.at);
    const decision = limiter.consume('k', row.cost);
    const got = fields(decision);
    if (got.limit !== row.limit || got.retryAfter !== row.retryAfter) {
      failures.push(`step ${i} at t+${row.at}: want ${row.limit} | Retry-After ${row.retryAfter} got ${got.limit} | Retry-After ${got.retryAfter}`);
    }
    return decision;
  });
  if (failures.length > 0) throw new Error(`${failures.length} of ${rows.length} steps differ:\n${failures.join('\n')}`);
  return decisions;
}

/**
 * FakeResponse is a Node-like response driven by the test: `finish` completes it ('finish', then
 * 'close'); `broken` closes it after its status was sent (mid-body); `leave` closes it before any
 * status (the client gone while the handler works); `answer` is the handler ending it afterwards
 * (res.end, which the watch patches on an abandoned response); `abort` is leave then answer.
 */
export interface FakeResponse {
  readonly res: NodeResponse;
  finish(): void;
  broken(): void;
  leave(): void;
  answer(status?: number): void;
  abort(): void;
}

export function fakeResponse(status = 200, contentLength?: number): FakeResponse {
  const res = Object.assign(new EventEmitter(), {
    statusCode: status,
    headersSent: false,
    writableFinished: false,
    closed: false,
    getHeader: (n: string) => (n === 'content-length' ? contentLength : undefined),
    write: () => true,
    end: () => undefined,
  });
  const close = () => ((res.closed = true), res.emit('close'));
  const answer = (code?: number) => {
    if (code !== undefined) res.statusCode = code;
    res.end();
  };
  return {
    res: res as unknown as NodeResponse,
    finish: () => ((res.headersSent = true), (res.writableFinished = true), res.emit('finish'), close()),
    broken: () => ((res.headersSent = true), close()),
    leave: close,
    answer,
    abort: () => (close(), answer()),
  };
}
