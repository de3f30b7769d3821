/**
 * signalSocket, the client connection delay mode watches, made from a Request's signal: destroyed is
 * the signal aborted, a 'close' listener runs once on the abort, `off` removes it, and a request
 * without a signal gives nothing to watch.
 */
import { describe, expect, it } from 'vitest';
import { signalSocket } from '../src/signal-socket.js';

describe('signalSocket', () => {
  it('is destroyed once the signal aborted, and calls a close listener exactly once', () => {
    const client = new AbortController();
    const socket = signalSocket(client.signal)!;
    let closed = 0;
    socket.once('close', () => closed++);
    expect(socket.destroyed).toBe(false);
    client.abort();
    client.signal.dispatchEvent(new Event('abort')); // a second abort event: the listener is gone
    expect([socket.destroyed, closed]).toEqual([true, 1]);
  });

  it('calls no listener that was taken off', () => {
    const client = new AbortController();
    const socket = signalSocket(client.signal)!;
    let closed = 0;
    const listener = () => closed++;
    socket.once('close', listener);
    socket.off('close', listener);
    client.abort();
    expect(closed).toBe(0);
  });

  it('gives nothing to watch for a request without a signal', () => {
    expect(signalSocket(undefined)).toBeUndefined();
    expect(signalSocket(null)).toBeUndefined();
  });
});
