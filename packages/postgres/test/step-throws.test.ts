/**
 * A step that throws inside a batch's transaction (a defect in this process, not a failed connection)
 * must not leave the transaction open on its connection: postgres.js keeps a connection it is told is
 * broken out of its pool, so one left "broken" but alive would hold its row locks for ever, and every
 * later batch on those rows would wait behind it. The transaction is rolled back, the connection is
 * returned alive, and the batch fails as a reply (decided by the failure policy, reported, no rerun).
 *
 * No server here: the Db is a stand-in that answers the lock step and records what the store sends,
 * under core's BatchRunner and SqlTransactor with this package's dialect, as PostgresStore wires them.
 */
import { BatchRunner, Failure, Remote, SqlTransactor, expiredAt, sqlFailureOf } from '@ratekeeper/core/store';
import { expect, it } from 'vitest';
import type { Db, Row } from '../src/client.js';
import { PostgresDialect } from '../src/dialect.js';

it('rolls back, returns the connection alive and fails the batch as a reply', async () => {
  const sent: string[] = [];
  const released: boolean[] = [];
  const db: Db = {
    again: (work) => work(),
    call: () => Promise.reject(new Error('not used: the call is a composite')),
    query: (): Promise<Row[]> => Promise.resolve([{ now: String(Date.now()) }]),
    session: () =>
      Promise.resolve({
        query: (text: string): Promise<Row[]> => {
          sent.push(text.startsWith('BEGIN') ? 'BEGIN …' : text);
          return Promise.resolve(text.startsWith('BEGIN') ? [{ k: '00', s: null, x: '7', now: String(Date.now()) }] : []);
        },
        release: (broken: boolean) => {
          released.push(broken);
        },
      }),
  };
  const dialect = new PostgresDialect(db, 't', false, false, 500);
  const remote = new Remote({ timeoutMs: 1000, probeIntervalMs: 200, failureOf: sqlFailureOf(dialect), expiredAt });
  const transactor = new SqlTransactor({ dialect, lockWaitMs: 500, giveUpMs: 5000, alive: () => {} });
  const runner = new BatchRunner({ remote, transactor, clientTime: false, timeoutMs: 1000 });
  const policy = { algorithm: 'fixed-window', name: 'p', limit: 1, windowMs: 1000 } as never;
  const throwing = {
    evaluate() {
      throw new TypeError('a defect in a step');
    },
  } as never;
  const answer = await runner.run({ kind: 'decide', parts: [{ id: '00', name: 'p', algorithm: throwing, policy }], now: 0, cost: 1, commit: true }, (a) => a);
  expect(answer).toBeInstanceOf(Failure);
  expect((answer as Failure).reason).toBe('reply');
  expect(sent).toEqual(['BEGIN …', 'ROLLBACK']);
  expect(released, 'the connection went back alive, once').toEqual([false]);
  expect(remote.down, 'a reply: the breaker stays closed').toBe(false);
});
