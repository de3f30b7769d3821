/**
 * Batcher: the calls made while earlier batches are in flight travel together. A call is queued and
 * a batch leaves on the next microtask when fewer than MAX_IN_FLIGHT batches of this store are in
 * flight (else when one returns), with every call queued by then, up to MAX_CALLS: so a quiet process
 * pays one transaction per call and a busy one a few per burst, whatever its rate (the 2,000 calls of
 * a burst made in one turn are two transactions). Each batch is one Request to core's Remote
 * (./transaction.ts), in the order the calls were made.
 */
import type { Remote } from '@ratekeeper/core/store';
import type { Call } from '../rows/steps.js';
import { type BatchReply, BatchRequest, type TransactionContext } from './transaction.js';

const MAX_IN_FLIGHT = 4;
const MAX_CALLS = 1_024;

export class Batcher {
  readonly #remote: Remote;
  readonly #context: TransactionContext;
  #queue: Call[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(remote: Remote, context: TransactionContext) {
    this.#remote = remote;
    this.#context = context;
  }

  submit(call: Call): void {
    this.#queue.push(call);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= MAX_IN_FLIGHT || this.#queue.length === 0) return;
    this.#scheduled = true;
    queueMicrotask(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    while (this.#inFlight < MAX_IN_FLIGHT && this.#queue.length > 0) {
      const calls = this.#queue.length <= MAX_CALLS ? this.#queue : this.#queue.slice(0, MAX_CALLS);
      this.#queue = calls === this.#queue ? [] : this.#queue.slice(MAX_CALLS);
      this.#inFlight++;
      void this.#remote.run(new BatchRequest(this.#context, calls), (ended) => deliver(calls, ended)).then(this.#returned);
    }
  };

  readonly #returned = (): void => {
    this.#inFlight--;
    this.#schedule();
  };
}

/** deliver hands each call its decisions, or the Failure that ended the batch. */
function deliver(calls: readonly Call[], ended: unknown): void {
  const reply = ended as BatchReply | undefined;
  const decisions = reply !== undefined && typeof reply === 'object' && 'decisions' in reply ? reply.decisions : undefined;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as Call;
    const mine = decisions?.[i];
    try {
      if (mine !== undefined) call.deliver(mine);
      else call.deliver(undefined, ended);
    } catch (error) {
      process.nextTick(() => {
        throw error;
      });
    }
  }
}
