/**
 * Batcher ordering at a flush (./batcher.ts): a reset or refund calls flush() and then sends its own
 * command, so every call made before it must be on the wire once flush() returns, the queued ones
 * included, also while MAX_IN_FLIGHT batches are out. Sending the queue without `now` held it back
 * behind the batches flush() had just sent, so the reset reached Redis first: the check on the keys
 * sent fails then (the last call is missing).
 */
import { describe, expect, it } from 'vitest';
import { Batcher, type Group, SOLO_BELOW } from './batcher.js';
import type { RedisRemote } from './remote.js';

/** A remote that records the keys of every command it is given and never answers. */
function recording() {
  const sent: string[][] = [];
  const remote = {
    eval(_script: unknown, command: string[]) {
      const keyCount = Number(command[2]);
      sent.push(command.slice(3, 3 + keyCount));
      return new Promise(() => {});
    },
  } as unknown as RedisRemote;
  return { remote, sent };
}

const group: Group = {
  size: 1,
  spec: ['1', '1', '10', '1000'],
  script: { source: '', sha: 'single' },
  command: (key, _now, signed) => ['EVALSHA', 'single', '1', key as string, signed, '10', '1000', '0'],
  sentIn: 0,
  index: 0,
};

describe('Batcher.flush', () => {
  it('puts every call made before it on the wire, queued ones included, with 4 batches out', () => {
    const { remote, sent } = recording();
    const batcher = new Batcher(remote, false, 2, undefined);
    const submit = (key: string) => void batcher.submit(key, key, group, 1, true, 0, (x) => x);
    // f0…f14 go alone (the batcher was quiet); behind those 15 sends, c0…c7 are held as 4 batches of 2,
    // and c8 waits in the queue.
    const alone = Array.from({ length: SOLO_BELOW - 1 }, (_, i) => `f${i}`);
    const held = Array.from({ length: 9 }, (_, i) => `c${i}`);
    for (const key of [...alone, ...held]) submit(key);
    expect(sent.flat()).toEqual(alone);
    batcher.flush();
    expect(sent.flat()).toEqual([...alone, ...held]);
  });
});
