/**
 * A process to kill mid-transaction, run by test/crash.test.ts (under Node or Bun). It decides a
 * composite of two policies directly on the store's bindings (`consumeAll`): ADMITS requests, all
 * admitted, then one more whose second member's write never finishes: its `emptyAt` (which the store
 * calls while writing that member, after the first member's row is already written in the same
 * transaction) writes the marker file with the number admitted and spins until the process is killed.
 * Argument: the build URL, the database path, the marker path.
 */
import { writeFileSync } from 'node:fs';
import { fixedWindow, tokenBucket } from '@ratekeeper/core';

const [dist, path, marker] = process.argv.slice(2);
const { SqliteStore } = await import(dist);
const ADMITS = 200;

const store = new SqliteStore({ path });
let admitted = 0;
let armed = false;
const hooked = {
  ...fixedWindow,
  emptyAt(policy, state, offset) {
    if (armed) {
      writeFileSync(marker, String(admitted));
      for (;;);
    }
    return fixedWindow.emptyAt(policy, state, offset);
  },
};
const bucket = store.bind(
  tokenBucket,
  Object.freeze({ algorithm: 'token-bucket', name: 'crash-a', capacity: 1000, refillPerSecond: 1e-6, intervalMs: 1e9, burstMs: 1e12, limit: 1000, windowMs: 1e12 }),
);
const window = store.bind(hooked, Object.freeze({ algorithm: 'fixed-window', name: 'crash-b', limit: 1000, windowMs: 1e12 }));
const now = 1_700_000_000_000;
for (let i = 0; i < ADMITS; i++) if (store.consumeAll([bucket, window], 'k', now, 1, true).every((d) => d.allowed)) admitted++;
armed = true;
store.consumeAll([bucket, window], 'k', now, 1, true);
