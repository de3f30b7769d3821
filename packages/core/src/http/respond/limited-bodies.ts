/**
 * LimitedBodies remembers the default limited response (core's `limitedResponse`) of one limiter as
 * ready text and bytes, so that answering a 429 costs a lookup instead of building and stringifying a
 * JSON object and encoding it: a 429 must cost no more than the server's ordinary 200. Every adapter's
 * default answer uses it, in the form its framework sends cheapest: the text where the body goes
 * straight to Node's response (Express, Koa: Node writes the head and a string body as one string,
 * a Buffer as a second chunk), the bytes elsewhere (Fastify re-examines a string under a JSON content
 * type per response to append `; charset=utf-8`; a Web Response). The Buffers are shared by every 429 of
 * the limiter: an onSend hook must not write into a payload Buffer in place.
 *
 * The body of a limitedResponse depends only on the failure kind, the Retry-After seconds and which of
 * the limiter's policies were violated. A decision whose policies are the limiter's own (always, for
 * the core limiters) is looked up under that triple, packed in one number; any other decision (a
 * hand-written limiter reporting foreign policies) is built afresh and never cached. At most
 * MAX_LIMITED_BODIES bodies are kept per limiter, so the cache is bounded whatever the waits.
 */
import type { Decision } from '../../decision.js';
import type { Policy } from '../../policy.js';
import { retryAfterSeconds } from './headers.js';
import { type LimitedResponse, limitedResponse } from './problem.js';

export interface LimitedBody {
  readonly status: LimitedResponse['status'];
  readonly contentType: string;
  /** The body as text (UTF-8 when sent; ASCII for the default problem+json bodies). */
  readonly text: string;
  /** The same body encoded: a Buffer on runtimes that have one (Node, Bun), else a plain Uint8Array (Workers, Deno). */
  readonly bytes: Uint8Array;
}

/** MAX_LIMITED_BODIES is how many bodies one limiter keeps. */
export const MAX_LIMITED_BODIES = 1024;
/** Composites wider than this are not cached (the violated-set mask must fit a safe integer). */
const MAX_MEMBERS = 16;

export class LimitedBodies {
  readonly #policies: readonly Policy[];
  readonly #cache = new Map<number, LimitedBody>();

  constructor(policies: readonly Policy[]) {
    this.#policies = policies;
  }

  /** size is the number of bodies kept, at most MAX_LIMITED_BODIES. */
  get size(): number {
    return this.#cache.size;
  }

  /** get returns the default limited response for `decision` (a denial) as bytes. */
  get(decision: Decision): LimitedBody {
    const slot = this.#slot(decision);
    if (slot === undefined) return build(decision);
    let body = this.#cache.get(slot);
    if (body === undefined) {
      body = build(decision);
      if (this.#cache.size < MAX_LIMITED_BODIES) this.#cache.set(slot, body);
    }
    return body;
  }

  /** #slot packs (failure, retry seconds, violated mask) into one number, or undefined when uncacheable. */
  #slot(decision: Decision): number | undefined {
    if (decision.failure === 'closed') return -1;
    if (decision.forbidden === true) return -2;
    const mask = this.#violated(decision);
    if (mask === undefined) return undefined;
    const retry = retryAfterSeconds(decision) ?? 0;
    return retry * 2 ** MAX_MEMBERS + mask;
  }

  /** #violated is the bit set of the limiter's policies that denied, or undefined for foreign policies. */
  #violated(decision: Decision): number | undefined {
    const policies = this.#policies;
    const parts = decision.parts;
    if (parts === undefined) return policies.length === 1 && decision.policy === policies[0] ? 1 : undefined;
    if (parts.length !== policies.length || parts.length > MAX_MEMBERS) return undefined;
    let mask = 0;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as Decision;
      if (part.policy !== policies[i]) return undefined;
      if (!part.allowed) mask |= 1 << i;
    }
    return mask;
  }
}

// Node-only Buffer is looked up, never assumed: core must load and answer on Workers and Deno too.
const NodeBuffer = (globalThis as { Buffer?: { from(text: string): Uint8Array } }).Buffer;
const encoder = NodeBuffer === undefined ? new TextEncoder() : undefined;

function build(decision: Decision): LimitedBody {
  const response = limitedResponse(decision);
  const bytes = NodeBuffer === undefined ? encoder!.encode(response.body) : NodeBuffer.from(response.body);
  return { status: response.status, contentType: response.contentType, text: response.body, bytes };
}
