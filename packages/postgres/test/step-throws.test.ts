/**
 * A step that throws inside a batch's transaction (a defect in this process, not a failed connection)
 * must not leave the transaction open on its connection: postgres.js keeps a connection it is told is
 * broken out of its pool, so one left "broken" but alive would hold its row locks for ever, and every
 * later batch on those rows would wait behind it. The transaction is rolled back, the connection is
 * returned alive, and the batch fails as a reply (decided by the failure policy, reported, no rerun).
 *
 * No server here: the Db is a stand-in that answers the lock step and records what the store sends.
 */
import { Failure, Remote } from '@ratekeeper/core/store';
import { expect, it } from 'vitest';
import type { Op } from '../src/rows/apply.js';
import { Batcher, expiredAt } from '../src/wire/batcher.js';
import type { Db, Row } from '../src/wire/client.js';
import { failureOf } from '../src/wire/failure.js';

it('rolls back, returns the connection alive and fails the batch as a reply', async () => {
  const sent: string[] = [];
  const released: boolean[] = [];
  const db: Db = {
    kind: 'postgres',
    onAnswer: () => {},
    rerun: (query) => query(),
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
  const remote = new Remote({ timeoutMs: 1000, probeIntervalMs: 200, failureOf, expiredAt });
  const ctx = { db, table: 't', clientTime: false, giveUpMs: 5000, ready: () => Promise.resolve(), committed: () => {}, alive: () => {} };
  const batcher = new Batcher(remote, ctx, 1000);
  const policy = { algorithm: 'fixed-window', name: 'p', limit: 1, windowMs: 1000 } as never;
  const op: Op = {
    kind: 'book',
    parts: [{ algorithm: {} as never, policy, row: '00' }],
    ledgers: [],
    now: 0,
    cost: 1,
    commit: true,
    book: () => {
      throw new TypeError('a defect in a step');
    },
  };
  const answer = await new Promise((resolve) => batcher.add(op, resolve));
  expect(answer).toBeInstanceOf(Failure);
  expect((answer as Failure).reason).toBe('reply');
  expect(sent).toEqual(['BEGIN …', 'ROLLBACK']);
  expect(released, 'the connection went back alive, once').toEqual([false]);
  expect(remote.down, 'a reply: the breaker stays closed').toBe(false);
});
