/**
 * BatchRunner: the runner of an asynchronous row store. The calls in flight together go to the store
 * together: an op is queued and, on the next microtask (so every call made in the same turn joins it),
 * the queue leaves as one transaction of up to MAX_BATCH ops while fewer than `maxInFlight`
 * transactions of this store are in flight, else as soon as one returns. So a quiet process pays one
 * transaction per call and a busy one a few per burst, whatever its rate. A call that leaves alone
 * and is plain (one rate limit, no ban) goes as the store's one statement when it has one (`decide`:
 * ./transactor.ts), one round trip, while fewer than `maxStatements` of them are in flight: the few
 * calls in flight of a quiet server each cost what a hand-written query would.
 *
 * An op whose rows are in a transaction still in flight waits for it (and so does every op behind it
 * on those rows, which keeps each row's ops in arrival order): one process never queues two of its
 * own transactions on one row lock, where they would only wait for each other.
 *
 * Each transaction is one call of core's Remote, which bounds it, judges the store by its silence
 * while this process listens, and sends it again while the store answers Expired (./transactor.ts):
 * a busy store costs time, never a fallback decision. A transaction can be silent while the store
 * works (a commit whose flush a busy disk stalls, a statement behind another's): so while one has
 * waited PING_FRACTION of timeoutMs, the transactor's `ping` (a trivial query on another connection,
 * through the same Remote) asks every PING_FRACTION whether the store answers at all; one stuck on a
 * dead connection does not stop the asking (the next goes while it has waited a whole period, up to
 * MAX_PINGS at once). A store of one connection cannot ask so; its lock waits are bounded on the
 * server instead (./sql-transactor.ts), which is the store answering. Its outcome is spread over its ops: each gets
 * its answer, or the Failure, which its binding decides by the failure policy. Decisions are taken at
 * the store's clock (whole milliseconds), or at each caller's `now` with `clientTime`.
 */
import { Failure } from '../remote/failure.js';
import type { Remote } from '../remote/remote.js';
import { applyOp } from './apply.js';
import { type Answer, type DecideOp, type Part, type RowOp, distinctRefs, refsOf } from './ops.js';
import type { Row, Rows } from './row.js';
import type { Runner } from './runner.js';
import { COMMITTED, type Decided, type Transactor, type Work } from './transactor.js';

/** MAX_BATCH bounds the ops of one transaction. */
export const MAX_BATCH = 256;
/** A ping is sent every timeoutMs / PING_FRACTION while a transaction has waited that long; at most MAX_PINGS at once. */
const PING_FRACTION = 4;
const MAX_PINGS = 3;
/** DEFAULT_IN_FLIGHT: transactions of one store in flight at once (a burst never takes every connection of a pool the application shares). */
export const DEFAULT_IN_FLIGHT = 4;
/** DEFAULT_STATEMENTS: plain calls decided alone, one statement each, in flight at once. */
export const DEFAULT_STATEMENTS = 8;

interface Pending {
  readonly op: RowOp;
  readonly deliver: (answer: Answer | Failure) => void;
}

export interface BatchRunnerOptions {
  readonly remote: Remote;
  readonly transactor: Transactor;
  /** Decide at each caller's clock rather than the store's. */
  readonly clientTime: boolean;
  /** The store's timeoutMs (the pings' period is a quarter of it). */
  readonly timeoutMs: number;
  readonly maxInFlight?: number;
  readonly maxStatements?: number;
}

export class BatchRunner implements Runner<'async'> {
  readonly mode = 'async';
  readonly #remote: Remote;
  readonly #transactor: Transactor;
  readonly #clientTime: boolean;
  readonly #maxInFlight: number;
  #queue: Pending[] = [];
  /** The rows of the transactions in flight. */
  readonly #busy = new Set<string>();
  #inFlight = 0;
  #statements = 0;
  readonly #maxStatements: number;
  #scheduled = false;
  readonly #pingMs: number;
  /** When each transaction in flight was sent; the pinger's timer; pings in flight and when the latest left. */
  readonly #sentAt = new Set<{ readonly at: number }>();
  #pinger: ReturnType<typeof setInterval> | undefined;
  #pings = 0;
  #pingedAt = 0;
  /** Counters: transactions sent and the ops they carried. */
  batches = 0;
  calls = 0;

  constructor(options: BatchRunnerOptions) {
    this.#remote = options.remote;
    this.#transactor = options.transactor;
    this.#clientTime = options.clientTime;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_IN_FLIGHT;
    this.#maxStatements = options.maxStatements ?? DEFAULT_STATEMENTS;
    this.#pingMs = Math.max(1, Math.floor(options.timeoutMs / PING_FRACTION));
  }

  run<T>(op: RowOp, then: (answer: Answer | Failure) => T): Promise<T> {
    return new Promise((resolve) => {
      this.#queue.push({ op, deliver: (answer) => resolve(then(answer)) });
      if (!this.#scheduled && (this.#inFlight < this.#maxInFlight || this.#statements < this.#maxStatements)) {
        this.#scheduled = true;
        queueMicrotask(this.#flush);
      }
    });
  }

  onRecover(callback: () => void): void {
    this.#remote.onRecover(callback);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    while (this.#queue.length > 0) {
      const alone = this.#queue.length === 1 ? this.#alone(this.#queue[0] as Pending) : undefined;
      if (alone !== undefined && this.#statements < this.#maxStatements) {
        this.#queue = [];
        this.#send([alone], true);
        continue;
      }
      if (this.#inFlight >= this.#maxInFlight) return;
      const batch = this.#take();
      if (batch.length === 0) return;
      this.#send(batch, false);
    }
  };

  /** alone is `pending` when it may go as the store's one statement now: plain, decidable, its row not in flight. */
  #alone(pending: Pending): Pending | undefined {
    const plain = plainOf(pending.op);
    if (plain === undefined || this.#transactor.decides?.(plain.parts[0] as Part) !== true || this.#busy.has((plain.parts[0] as Part).id)) return undefined;
    return pending;
  }

  /** take removes the ops that may leave now (see above), in arrival order, up to MAX_BATCH. */
  #take(): Pending[] {
    const taken: Pending[] = [];
    const kept: Pending[] = [];
    const blocked = new Set(this.#busy);
    for (const pending of this.#queue) {
      const ids = refsOf(pending.op).map((ref) => ref.id);
      if (taken.length < MAX_BATCH && !ids.some((id) => blocked.has(id))) taken.push(pending);
      else {
        kept.push(pending);
        for (const id of ids) blocked.add(id);
      }
    }
    this.#queue = kept;
    return taken;
  }

  #send(pending: Pending[], statement: boolean): void {
    if (statement) this.#statements++;
    else this.#inFlight++;
    this.batches++;
    this.calls += pending.length;
    const ops = pending.map((p) => p.op);
    const refs = distinctRefs(ops);
    for (const ref of refs) this.#busy.add(ref.id);
    const sent = { at: performance.now() };
    this.#sentAt.add(sent);
    if (this.#transactor.ping !== undefined) this.#pinger ??= setInterval(this.#ping, this.#pingMs);
    const answers: Answer[] = [];
    const clientTime = this.#clientTime;
    const work: Work = (rows, at) => {
      answers.length = 0;
      let latest = Number.NEGATIVE_INFINITY;
      for (const op of ops) {
        const when = clientTime ? op.now : at;
        if (when > latest) latest = when;
        answers.push(applyOp(op, rows, when));
      }
      return latest;
    };
    const lone = statement ? plainOf(ops[0] as RowOp) : undefined;
    const token = lone === undefined ? 0 : tokenOf();
    const send = (deadline: number) => {
      const decided = lone === undefined ? undefined : this.#transactor.decide?.(lone.parts[0] as Part, lone.cost, lone.commit, clientTime ? lone.now : undefined, deadline, token);
      return decided ?? this.#transactor.transact(refs, work, deadline);
    };
    void this.#remote
      .run({ deadlined: true, send }, (ended) => {
        if (lone !== undefined && isDecided(ended)) return deliver(pending[0] as Pending, answerOf(lone, ended, clientTime));
        const failure = ended instanceof Failure ? ended : ended === COMMITTED ? undefined : new Failure('reply', ended);
        pending.forEach((p, i) => deliver(p, failure ?? answers[i]));
      })
      .then(() => {
        if (statement) this.#statements--;
        else this.#inFlight--;
        for (const ref of refs) this.#busy.delete(ref.id);
        this.#sentAt.delete(sent);
        if (this.#inFlight + this.#statements === 0) {
          clearInterval(this.#pinger);
          this.#pinger = undefined;
        }
        this.#flush();
      });
  }

  /** ping asks whether the store answers at all, while a transaction has waited a while (see above). */
  readonly #ping = (): void => {
    const ping = this.#transactor.ping;
    if (ping === undefined || this.#remote.down) return;
    const now = performance.now();
    if (this.#pings >= MAX_PINGS || (this.#pings > 0 && now - this.#pingedAt < this.#pingMs)) return;
    let waiting = false;
    for (const sent of this.#sentAt) if (now - sent.at >= this.#pingMs) waiting = true;
    if (!waiting) return;
    this.#pings++;
    this.#pingedAt = now;
    void this.#remote.run({ deadlined: false, send: () => ping.call(this.#transactor) }, () => {
      this.#pings--;
    });
  };
}

/** plainOf is `op` when one statement may decide it (one rate part, no ban), else undefined. */
function plainOf(op: RowOp): DecideOp | undefined {
  return op.kind === 'decide' && op.ban === undefined && op.parts.length === 1 && op.parts[0]?.lease === undefined ? op : undefined;
}

function isDecided(ended: unknown): ended is Decided {
  return typeof ended === 'object' && ended !== null && 'written' in ended;
}

/**
 * answerOf runs core's step on the state a statement decided `op` on, at its instant, and checks that
 * what the statement wrote is what the step writes: a port that drifted is a reply failure, never a
 * decision the database did not take.
 */
function answerOf(op: DecideOp, decided: Decided, clientTime: boolean): Answer | Failure {
  const part = op.parts[0] as Part;
  const rows: Rows = new Map([[part.id, { state: decided.state, expiresAt: 0, fill: 0, dirty: false }]]);
  const answer = applyOp(op, rows, clientTime ? op.now : decided.at);
  const row = rows.get(part.id) as Row;
  const wrote = row.dirty ? row.state : undefined;
  if (decided.replayed !== true && !sameState(wrote, decided.written))
    return new Failure('reply', new Error(`the store's statement for ${part.algorithm.name} wrote ${String(decided.written)}, core's step ${String(wrote)}`));
  return answer;
}

function sameState(a: Float64Array | undefined, b: Float64Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]) || x === b[i]);
}

/** tokenOf names one call for a store that may be asked twice (a lost reply): 52 random bits. */
function tokenOf(): number {
  const words = globalThis.crypto.getRandomValues(new Uint32Array(2));
  return ((words[0] as number) & 0xfffff) * 2 ** 32 + (words[1] as number);
}

/** deliver hands one op its answer; a `then` that throws is the caller's bug, surfaced as an uncaught error, never a lost answer for the rest. */
function deliver(pending: Pending, answer: Answer | Failure): void {
  try {
    pending.deliver(answer);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}
