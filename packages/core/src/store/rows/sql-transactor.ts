/**
 * SqlTransactor: the kit's Transactor (./transactor.ts) over a SQL database, for every SQL dialect
 * (PostgreSQL, MySQL): the flow of a transaction is the same everywhere, and written once here; a
 * dialect supplies only its statements (SqlSession: lock and read, commit before a deadline, roll
 * back) and what its errors mean.
 *
 * One transaction, two round trips at most: `lock` opens the transaction and locks every row in id
 * order (missing ones made), answering their states, the server's clock read after the locks, and a
 * token that tells the transaction's fate later; the kit then runs the work in this process and
 * `commit` writes the dirty rows and commits, only if the server's clock is still before the deadline
 * (checked on the server, in the statement that writes). A batch that wrote nothing rolls back.
 *
 * Lock waits are bounded on the server (`lockWaitMs`, half the store's timeoutMs): a lock held by
 * another session answers 'retry' when the bound passes, which is the database answering (Remote hears
 * it alive) and runs the transaction again, so a lock held by anyone is waited for as long as core's
 * Remote waits for any busy store (MAX_WAIT_FACTOR × timeoutMs), on a pool of any size: no liveness
 * question needs a second connection.
 *
 * Connections that fail: before `commit` is sent nothing can commit (a transaction whose connection
 * ends rolls back), so the batch runs again on another connection, as long as connections can be had
 * (a database that refuses them fails the batch at once) and for at most `giveUpMs`. A deadlock or a
 * bounded lock wait runs it again the same way. Once `commit` was sent and its reply lost, the
 * transaction's fate is asked (`fate`, on another connection): committed, its answers stand; aborted,
 * it runs again; unknown, ask again.
 *
 * A connection the server forgot says nothing (a server restarted, a NAT that dropped its entry: the
 * statement it carried gets no reply, and nothing is written on it again that would be reset). When a
 * connection dies ('lost'), every other statement in flight at that moment may be on one such, and so
 * may every statement in flight when a ping was sent that the database then answered (the batcher pings
 * while a transaction waits: with every call on one row queued behind it, no other connection would
 * die to tell). Each such statement still unanswered SUSPECT_FACTOR × lockWaitMs later is taken for
 * lost (its session destroyed) and the batch runs again on another connection, or its commit's fate is
 * asked, as for any lost connection. A statement is never silent that long on a working connection
 * (its lock waits end at lockWaitMs on the server), so a storm of killed connections changes nothing
 * for the others, and a server that answers nothing (hung, stopped) is judged by core's Remote alone.
 *
 * While the database cannot be asked the batch keeps asking, and
 * Remote fails it once its deadline has certainly passed. That one case (a commit that landed, its
 * reply lost, the database unreachable from then on) can count a call both in the database and in a
 * fallback: it can only deny more, never admit more.
 */
import { Failure } from '../remote/failure.js';
import { type RowRef, type Rows, type Write, writesOf } from './row.js';
import type { Part } from './ops.js';
import { COMMITTED, type Decided, Expired, type Transactor, type Work } from './transactor.js';

/** Locked is what `lock` answers: each row's state by id (missing: empty), the server's clock, and the fate token. */
export interface Locked {
  readonly states: ReadonlyMap<string, Float64Array | undefined>;
  readonly at: number;
  readonly fate: string;
}

export interface SqlSession {
  /** lock opens a transaction and locks `refs` in order, each lock wait bounded by `lockWaitMs` on the server. */
  lock(refs: readonly RowRef[], lockWaitMs: number): Promise<Locked>;
  /** commit writes `writes` and commits only if the server's clock is before `deadline` (else rolls back); `fate` is lock's token. */
  commit(writes: readonly Write[], deadline: number, fate: string): Promise<{ readonly committed: boolean; readonly at: number }>;
  rollback(): Promise<void>;
  /** release returns the connection, or destroys it (`broken`: it may still hold a transaction). */
  release(broken: boolean): void;
}

/** What an error means: 'refused' (no connection can be had: fail now), 'lost' (the connection ended), 'retry' (rolled back: run again), 'reply' (a statement failed). */
export type SqlErrorKind = 'refused' | 'lost' | 'retry' | 'reply';

export interface SqlDialect {
  /** ready resolves once the schema exists (made once per store, unless the team runs its own migrations). */
  ready(): Promise<void>;
  session(): Promise<SqlSession>;
  /** now reads the server's clock (epoch ms). */
  now(): Promise<number>;
  /** fate tells what became of the transaction whose token is `fate`. */
  fate(fate: string): Promise<'committed' | 'aborted' | 'unknown'>;
  classify(error: unknown): SqlErrorKind;
  /** working tells an error the database itself sent while working (it answers). */
  working(error: unknown): boolean;
  /** ping answers a trivial query on any connection (`SELECT 1`). */
  ping(): Promise<unknown>;
  /** decides tells whether `decide` has a statement for `part`'s algorithm. */
  decides?(part: Part): boolean;
  /**
   * decide decides one plain call in one statement (./transactor.ts, Decided): under the call's
   * deadline, and as applied already when the row carries `token` (a call sent again after a lost reply).
   */
  decide?(part: Part, cost: number, commit: boolean, clientAt: number | undefined, deadline: number, token: number): Promise<Decided | Expired>;
}

export interface SqlTransactorOptions {
  readonly dialect: SqlDialect;
  readonly lockWaitMs: number;
  /** How long a batch runs again, or asks a lost commit's fate, before it gives up (Remote has decided it long before). */
  readonly giveUpMs: number;
  /** alive tells core's Remote the database answered along the way. */
  alive(): void;
  /** committed runs after a transaction committed, with the latest instant its work decided at (housekeeping). */
  committed?(at: number): void;
}

/** StepError: the kit's own step threw inside a transaction: a defect here, not the database's; a 'reply' failure. */
export class StepError extends Error {}

/** sqlFailureOf classifies a rejected transaction for core's Remote: a refused or lost connection trips the breaker, a reply does not. */
export function sqlFailureOf(dialect: Pick<SqlDialect, 'classify'>): (error: unknown) => Failure {
  return (error) => {
    if (error instanceof StepError) return new Failure('reply', error);
    const kind = dialect.classify(error);
    return new Failure(kind === 'refused' || kind === 'lost' ? 'connection' : 'reply', error);
  };
}

const RERUN = Symbol('rerun');
/** A suspect statement (in flight when another connection died, or when an answered ping was sent) is taken for lost after SUSPECT_FACTOR × lockWaitMs more of silence. */
const SUSPECT_FACTOR = 2;

/** Forgotten: a suspect statement that stayed silent, given up (see above): its connection is lost. */
class Forgotten extends Error {
  constructor() {
    super('no reply on a connection while the database answered elsewhere');
  }
}

/** InFlight is one statement on the wire; `suspect` arms a timer that abandons it (see above). */
interface InFlight {
  timer: ReturnType<typeof setTimeout> | undefined;
  readonly abandon: () => void;
}
/** The pause between two questions about a transaction whose commit reply was lost. */
const ASK_EVERY_MS = 20;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SqlTransactor implements Transactor {
  readonly #o: SqlTransactorOptions;
  readonly #inFlight = new Set<InFlight>();

  constructor(options: SqlTransactorOptions) {
    this.#o = options;
  }

  async transact(refs: readonly RowRef[], work: Work, deadline: number): Promise<typeof COMMITTED | Expired> {
    const { dialect } = this.#o;
    if (deadline === 0) return new Expired(await dialect.now());
    await dialect.ready();
    const startedAt = performance.now();
    for (let reruns = 0; ; reruns++) {
      const done = await this.#attempt(refs, work, deadline, startedAt);
      if (done !== RERUN) return done;
      if (performance.now() - startedAt > this.#o.giveUpMs) throw new GaveUp();
      // Another turn first: a connection that fails at once must not spin this process.
      if (reruns > 0) await pause(Math.min(reruns, 10));
    }
  }

  /**
   * ping asks whether the database answers (the batcher's, while a transaction waits). An answer makes
   * the statements in flight since before it was sent suspect (see above): the database is working, so
   * one of them still silent SUSPECT_FACTOR × lockWaitMs later is on a connection that is gone.
   */
  ping(): Promise<unknown> {
    const before = [...this.#inFlight];
    return this.#o.dialect.ping().then((answer) => {
      this.#suspect(before);
      return answer;
    });
  }

  decides(part: Part): boolean {
    return this.#o.dialect.decide !== undefined && this.#o.dialect.decides?.(part) === true;
  }

  /**
   * decide runs a plain call as one statement when the dialect has one for its algorithm (else
   * undefined: the kit sends a transaction). A lost connection or a bounded lock wait sends it again
   * with the same token, so a call the database already applied answers as applied, never twice.
   */
  decide(part: Part, cost: number, commit: boolean, clientAt: number | undefined, deadline: number, token: number): Promise<Decided | Expired> | undefined {
    const { dialect } = this.#o;
    if (dialect.decide === undefined || dialect.decides?.(part) !== true) return undefined;
    if (deadline === 0) return dialect.now().then((ms) => new Expired(ms));
    return this.#decide(dialect as Required<SqlDialect>, part, cost, commit, clientAt, deadline, token);
  }

  async #decide(
    dialect: Required<SqlDialect>,
    part: Part,
    cost: number,
    commit: boolean,
    clientAt: number | undefined,
    deadline: number,
    token: number,
  ): Promise<Decided | Expired> {
    await dialect.ready();
    const startedAt = performance.now();
    for (let reruns = 0; ; reruns++) {
      try {
        const decided = await this.#watch(dialect.decide(part, cost, commit, clientAt, deadline, token));
        if (!(decided instanceof Expired) && decided.written !== undefined) this.#o.committed?.(clientAt ?? decided.at);
        return decided;
      } catch (error) {
        if (dialect.working(error)) this.#o.alive();
        const kind = this.#kind(error);
        if (kind !== 'lost' && kind !== 'retry') throw error;
        if (performance.now() - startedAt > this.#o.giveUpMs) throw new GaveUp();
        if (reruns > 0) await pause(Math.min(reruns, 10));
      }
    }
  }

  async #attempt(refs: readonly RowRef[], work: Work, deadline: number, startedAt: number): Promise<typeof COMMITTED | Expired | typeof RERUN> {
    const { dialect } = this.#o;
    let session: SqlSession;
    try {
      session = await dialect.session();
    } catch (error) {
      // A connection that died while being made is made again; a database that refuses them fails the batch.
      if (dialect.working(error)) this.#o.alive();
      if (this.#kind(error) === 'lost') return RERUN;
      throw error;
    }
    let fate: string | undefined;
    try {
      const locked = await this.#watch(session.lock(refs, this.#o.lockWaitMs));
      this.#o.alive(); // the locks were granted: however this attempt ends, the database is working
      const rows: Rows = new Map();
      for (const ref of refs) rows.set(ref.id, { state: locked.states.get(ref.id), expiresAt: 0, fill: 0, dirty: false });
      let latest: number;
      try {
        latest = work(rows, Math.floor(locked.at));
      } catch (error) {
        throw new StepError(`a step threw: ${String((error as Error)?.message ?? error)}`);
      }
      const writes = writesOf(rows, refs);
      if (writes.length === 0 || locked.at >= deadline) {
        await session.rollback();
        session.release(false);
        return writes.length === 0 ? COMMITTED : new Expired(locked.at);
      }
      fate = locked.fate;
      const written = await this.#watch(session.commit(writes, deadline, fate));
      session.release(false);
      if (!written.committed) return new Expired(written.at);
      this.#o.committed?.(latest);
      return COMMITTED;
    } catch (error) {
      const kind = error instanceof StepError ? 'reply' : this.#kind(error);
      if (dialect.working(error)) this.#o.alive();
      await close(session, kind === 'lost' || kind === 'refused');
      if (fate !== undefined && kind === 'lost') return this.#fateOf(fate, startedAt);
      if (kind === 'lost' || kind === 'retry') return RERUN;
      throw error;
    }
  }

  /**
   * kind classifies an error as the dialect does; a statement given up (Forgotten) is a lost connection.
   * A lost connection makes every other statement in flight suspect (see above).
   */
  #kind(error: unknown): SqlErrorKind {
    const kind = error instanceof Forgotten ? 'lost' : this.#o.dialect.classify(error);
    if (kind === 'lost') this.#suspect(this.#inFlight);
    return kind;
  }

  /** watch puts `statement` in flight: it settles as it does, or rejects with Forgotten once suspect and silent (see above). */
  #watch<T>(statement: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: InFlight = { timer: undefined, abandon: () => reject(new Forgotten()) };
      this.#inFlight.add(entry);
      const settle = (): void => {
        this.#inFlight.delete(entry);
        clearTimeout(entry.timer);
      };
      statement.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }

  /** suspect arms the give-up timer of each of `entries` still in flight that has none yet. */
  #suspect(entries: Iterable<InFlight>): void {
    const ms = SUSPECT_FACTOR * this.#o.lockWaitMs;
    for (const entry of entries) {
      if (entry.timer !== undefined || !this.#inFlight.has(entry)) continue;
      entry.timer = setTimeout(() => {
        this.#inFlight.delete(entry);
        entry.abandon();
      }, ms);
    }
  }

  /** fateOf learns the fate of a transaction whose commit reply was lost (see above). */
  async #fateOf(fate: string, startedAt: number): Promise<typeof COMMITTED | typeof RERUN> {
    for (;;) {
      try {
        const known = await this.#o.dialect.fate(fate);
        this.#o.alive();
        if (known === 'committed') return COMMITTED;
        if (known === 'aborted') return RERUN;
      } catch {
        // Not reachable yet: ask again.
      }
      if (performance.now() - startedAt > this.#o.giveUpMs) throw new GaveUp();
      await pause(ASK_EVERY_MS);
    }
  }
}

/** GaveUp: connections kept failing mid-transaction (or a lost commit's fate stayed unknown) for giveUpMs: a connection failure. */
class GaveUp extends Error {
  readonly code = 'ECONNRESET';
  constructor() {
    super('every connection failed mid-transaction for too long');
  }
}

/** close ends a session after an error: rolled back and returned when it still answers, destroyed otherwise. */
async function close(session: SqlSession, broken: boolean): Promise<void> {
  if (broken) return session.release(true);
  try {
    await session.rollback();
    session.release(false);
  } catch {
    session.release(true);
  }
}
