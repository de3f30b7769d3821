/**
 * The row-store kit's verbs on rows (src/store/rows/verbs.ts), as every row store runs them: a charge
 * writes its part's row past the limit and answers the usage after it; a usage read marks no row
 * dirty, not even an ended ban's (a store writes nothing for it); a block never shortens a ban and
 * carries cost 0, so a refund's lift leaves it; and while the store cannot answer, a charge goes to the
 * fallback and is reported as a 'charge' failure.
 */
import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../src/index.js';
import { type BanRef, type Part, type Rows, type UsageFigures, applyOp, emptyRow, fixedWindow } from '../../src/store/index.js';
import { MapStore } from './map-rows.js';

const T0 = 1_700_000_040_000;
const policy = new FixedWindowLimiter({ limit: 3, windowMs: 60_000 }).policy;
const part = { id: 'aa', name: policy.name, algorithm: fixedWindow, policy } as unknown as Part;
const ban: BanRef = { id: 'bb', name: `${policy.name}:ban`, banMs: 600_000 };
const fresh = (): Rows =>
  new Map([
    ['aa', emptyRow()],
    ['bb', emptyRow()],
  ]);

describe("the row kit's verbs", () => {
  it('a charge writes past the limit and answers the usage after it', () => {
    const rows = fresh();
    expect(applyOp({ kind: 'charge', parts: [part], now: T0, cost: 5 }, rows, T0)).toEqual({ used: 5, remaining: 0, resetAfterMs: 60_000, blockedMs: 0 });
    expect(rows.get('aa')).toMatchObject({ dirty: true, expiresAt: T0 + 60_000 });
    expect(Array.from(rows.get('aa')?.state ?? [])).toEqual([T0, 5]);
  });

  it('a usage read writes nothing, an ended ban included', () => {
    const rows = fresh();
    applyOp({ kind: 'charge', parts: [part], now: T0, cost: 2 }, rows, T0);
    applyOp({ kind: 'block', parts: [part], now: T0, ms: 1_000, ban }, rows, T0);
    for (const row of rows.values()) row.dirty = false;
    const at = T0 + 2_000; // the block has ended
    expect(applyOp({ kind: 'usage', parts: [part], now: at, ban }, rows, at)).toEqual({ used: 2, remaining: 1, resetAfterMs: 58_000, blockedMs: 0 });
    expect([...rows.values()].map((r) => r.dirty)).toEqual([false, false]);
  });

  it('a block never shortens a ban, and no refund lifts it', () => {
    const rows = fresh();
    applyOp({ kind: 'block', parts: [part], now: T0, ms: 10_000, ban }, rows, T0);
    applyOp({ kind: 'block', parts: [part], now: T0 + 1_000, ms: 1_000, ban }, rows, T0 + 1_000);
    expect(Array.from(rows.get('bb')?.state ?? [])).toEqual([T0 + 10_000, 0]);
    applyOp({ kind: 'refund', parts: [part], now: T0 + 2_000, cost: 1, ban }, rows, T0 + 2_000);
    const usage = applyOp({ kind: 'usage', parts: [part], now: T0 + 2_000, ban }, rows, T0 + 2_000) as UsageFigures;
    expect(usage).toEqual({ used: 0, remaining: 0, resetAfterMs: 8_000, blockedMs: 8_000 });
  });

  it('while the store cannot answer, a charge goes to the fallback, reported as a charge failure', async () => {
    const store = new MapStore();
    const operations: string[] = [];
    store.on('failure', (info) => operations.push(info.operation));
    const l = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, store });
    store.knobs.down = true;
    expect(await l.charge('k', 4)).toMatchObject({ used: 4, remaining: 0 });
    expect((await l.consume('k')).allowed).toBe(false);
    expect(operations).toEqual(['charge', 'consume']);
  });
});
