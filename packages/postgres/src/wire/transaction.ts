/**
 * One batch, one transaction, two round trips:
 *
 * 1. `BEGIN` and an upsert that locks every row of the batch in key order (../sql/sql.ts, lockSql),
 *    answering their states, the transaction id and the server's clock read after the locks;
 * 2. in this process, the calls in arrival order with core's steps (../rows/apply.ts); then the changed
 *    rows written and `COMMIT` in one text, the write done only if the server's clock is still before
 *    the call's deadline (commitSql), or `ROLLBACK` when nothing changed.
 *
 * Never decided twice: core's Remote decides a call locally only once the server's clock has
 * certainly passed its deadline (core's server-clock.ts), and past it the write changes nothing (the
 * check runs on the server, immediately before the write and the COMMIT that follows it in the same
 * text, so no client delay can come in between). Such a batch answers 'expired' and Remote sends it
 * again with a new deadline: a busy database costs time, never a fallback decision.
 *
 * Each answer along the way (the locks granted, an error the database sent, a question about a lost
 * COMMIT answered; and, through the client, a plain query's error: ./client.ts)
 * tells core's Remote the database is working, so a batch whose connections keep
 * being killed after their first statement is waited for as any busy database is.
 *
 * Connections that fail: before step 2 is sent, nothing can commit (a transaction without its COMMIT
 * rolls back when its connection ends), so the batch simply runs again on another connection, as long
 * as connections can be had (one that dies while being made is made again; a database that refuses
 * them fails the batch at once) and for at most giveUpMs; a rerun that finds the server's clock past
 * the deadline answers 'expired' as usual. Once step 2 was sent and its reply lost (the connection
 * killed, the network cut), the COMMIT may or may not have happened: the transaction's fate is asked
 * on another connection (txid_status), and the batch answers its decisions if it committed, runs again
 * if it aborted, and asks again while it is in progress. While the database cannot be asked, the batch
 * keeps asking and answers nothing: Remote then fails it once its deadline has certainly passed. That
 * one case (a COMMIT that happened before its deadline, whose reply was lost, with the database
 * unreachable from then on) is the only way a call is both recorded by the database and decided
 * locally; it is then counted twice, which can only deny more, never admit more.
 */
import type { Decision } from '@ratekeeper/core';
import { unreachable } from '@ratekeeper/core/store';
import { type Op, type RowState, apply } from '../rows/apply.js';
import type { Db, Row, Session } from './client.js';
import { AnswerError, breaksConnection, retryable, working } from './failure.js';
import { ROLLBACK, TIME, type Write, commitSql, lockSql, parseState, statusSql } from '../sql/sql.js';

/** Expired is the answer of a batch that changed nothing because its deadline had passed. */
export class Expired {
  readonly serverMs: number;
  constructor(serverMs: number) {
    this.serverMs = serverMs;
  }
}

/** Answers are a batch's results, one per op in order (decisions, or undefined for refund and reset). */
export type Answers = readonly (readonly Decision[] | undefined)[];

export interface Batch {
  readonly ops: readonly Op[];
  /** Distinct row keys of the ops, sorted (the lock order). */
  readonly rows: readonly string[];
}

/** The pause between two questions about a transaction whose COMMIT reply was lost. */
const ASK_EVERY_MS = 20;

export interface Context {
  readonly db: Db;
  readonly table: string;
  readonly clientTime: boolean;
  /**
   * giveUpMs: how long a batch runs again after failed connections, or asks about a lost COMMIT, before
   * it rejects (Remote has decided it long before: it waits MAX_WAIT_FACTOR × timeoutMs at most).
   */
  readonly giveUpMs: number;
  /** ready resolves once the schema exists (../sql/schema.ts). */
  ready(): Promise<void>;
  /** committed runs after a batch committed, with the server's clock (housekeeping: ../sql/sweep.ts). */
  committed(timeMs: number): void;
  /** alive tells core's Remote that the database answered along the way (a statement, or an error it sent). */
  alive(): void;
}

/** runBatch runs `batch` with `deadline` (server epoch ms; 0 answers 'expired' at once with the server's clock). */
export async function runBatch(ctx: Context, batch: Batch, deadline: number): Promise<Answers | Expired> {
  if (deadline === 0) return new Expired(numberOf((await ctx.db.query(TIME))[0], 'now'));
  await ctx.ready();
  const startedAt = performance.now();
  for (let reruns = 0; ; reruns++) {
    const done = await attempt(ctx, batch, deadline, startedAt);
    if (done !== RERUN) return done;
    if (performance.now() - startedAt > ctx.giveUpMs) throw new Error('PostgresStore: every connection failed mid-transaction for too long');
    // Another turn first: a connection that fails at once must not spin this process.
    if (reruns > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(reruns, 10)));
  }
}

const RERUN = Symbol('rerun');

async function attempt(ctx: Context, batch: Batch, deadline: number, startedAt: number): Promise<Answers | Expired | typeof RERUN> {
  let session: Session;
  try {
    session = await ctx.db.session();
  } catch (error) {
    // A connection that died while being made (killed during its startup, reset by a pooler) is made
    // again; a database that refuses connections fails the batch at once.
    if (working(error)) ctx.alive();
    if (breaksConnection(error) && !unreachable(error)) return RERUN;
    throw error;
  }
  let txid: string | undefined;
  let answers: Answers | undefined;
  try {
    const locked = await session.query(lockSql(ctx.table, batch.rows));
    ctx.alive(); // the locks were granted: however this attempt ends, the database is working
    const { rows, serverMs } = readLocked(locked, batch.rows);
    txid = String(locked[0]?.['x']);
    const results: (readonly Decision[] | undefined)[] = [];
    try {
      for (const op of batch.ops) results.push(apply(op, rows, ctx.clientTime ? op.now : serverMs));
    } catch (error) {
      // A defect in this process's own step, not the connection's: the transaction is rolled back and
      // its connection returned alive (never left open holding its locks), and the batch fails as a reply.
      throw new AnswerError(`PostgresStore: a step threw: ${String((error as Error)?.message ?? error)}`);
    }
    const writes = dirty(rows);
    if (writes.length === 0) {
      await session.query(ROLLBACK);
      session.release(false);
      return results;
    }
    if (serverMs >= deadline) {
      await session.query(ROLLBACK);
      session.release(false);
      return new Expired(serverMs);
    }
    answers = results;
    const written = (await session.query(commitSql(ctx.table, writes, deadline)))[0];
    session.release(false);
    const timeMs = numberOf(written, 'now');
    if (numberOf(written, 'n') !== writes.length) return new Expired(timeMs);
    ctx.committed(ctx.clientTime ? lastNow(batch) : timeMs);
    return results;
  } catch (error) {
    // An error the database sent (a SQLSTATE: the backend terminated by an administrator, a deadlock) is an answer too.
    if (working(error)) ctx.alive();
    await closeAfter(session, error);
    if (answers !== undefined && txid !== undefined && breaksConnection(error)) return fateOfLost(ctx, batch, txid, answers, startedAt);
    if (breaksConnection(error) || retryable(error)) return RERUN;
    throw error;
  }
}

/** closeAfter ends a session after an error: rolled back and returned when it still answers, destroyed otherwise. */
async function closeAfter(session: Session, error: unknown): Promise<void> {
  if (breaksConnection(error)) return session.release(true);
  try {
    await session.query(ROLLBACK);
    session.release(false);
  } catch {
    session.release(true);
  }
}

/**
 * fateOfLost learns the fate of a transaction whose COMMIT reply was lost: its answers when it
 * committed, RERUN when it aborted; while it is in progress or the database cannot be asked, it asks
 * again, for at most giveUpMs after the batch started.
 */
async function fateOfLost(ctx: Context, batch: Batch, txid: string, answers: Answers, startedAt: number): Promise<Answers | typeof RERUN> {
  for (;;) {
    try {
      const status = (await ctx.db.query(statusSql(txid)))[0]?.['status'];
      ctx.alive();
      if (status === 'committed') {
        if (ctx.clientTime) ctx.committed(lastNow(batch));
        return answers;
      }
      if (status === 'aborted') return RERUN;
    } catch {
      // Not reachable yet: ask again.
    }
    if (performance.now() - startedAt > ctx.giveUpMs) throw new Error('PostgresStore: the fate of a transaction whose COMMIT reply was lost is unknown');
    await new Promise((resolve) => setTimeout(resolve, ASK_EVERY_MS));
  }
}

function lastNow(batch: Batch): number {
  return (batch.ops[batch.ops.length - 1] as Op).now;
}

/** readLocked reads step 1's rows: every row of the batch, and the latest clock read among them. */
function readLocked(locked: readonly Row[], keys: readonly string[]): { rows: Map<string, RowState>; serverMs: number } {
  const rows = new Map<string, RowState>();
  let serverMs = Number.NEGATIVE_INFINITY;
  for (const row of locked) {
    rows.set(String(row['k']), { state: parseState(row['s'] as string | null), expiresAt: 0, dirty: false });
    const now = numberOf(row, 'now');
    if (now > serverMs) serverMs = now;
  }
  for (const key of keys) if (!rows.has(key)) throw new AnswerError('PostgresStore: a locked row is missing from the answer');
  return { rows, serverMs };
}

function dirty(rows: Map<string, RowState>): Write[] {
  const writes: Write[] = [];
  for (const [key, row] of rows) if (row.dirty) writes.push({ key, state: row.state, expiresAt: row.expiresAt });
  return writes;
}

function numberOf(row: Row | undefined, column: string): number {
  const value = Number(row?.[column]);
  if (!Number.isFinite(value)) throw new AnswerError(`PostgresStore: an answer without ${column}`);
  return value;
}
