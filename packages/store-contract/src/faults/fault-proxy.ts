/**
 * faultProxy: a TCP proxy on 127.0.0.1 in front of a store's server that injects the network's faults
 * between one application process and the store (this machine's kernel has no netem). Give each app
 * process (each client) its own proxy to partition some of them from the store while others still
 * reach it. Every fault applies to the connections open now and to those made later, until `heal()`.
 *
 * - `latency(ms, jitterMs)`: each chunk, in each direction, is held ms + a uniform [0, jitterMs) more,
 *   in order (a chunk never overtakes the one before it).
 * - `bandwidth(bytesPerSecond)`: each direction carries at most that many bytes a second.
 * - `blackhole()`: the sockets stay open and nothing goes through, either way (a partition, a
 *   firewall dropping packets); what is sent waits, as TCP's retransmissions do, and arrives in order
 *   after `heal()` (a TCP stream never loses bytes from its middle).
 * - `halfOpen()`: the server forgets every open connection (as a server that restarted, or a NAT that
 *   dropped its entry): nothing comes back, and the client's next write on it is reset (RST). New
 *   connections go through.
 * - `resetMidReply()`: the next reply from the server is cut: its first half is delivered, then the
 *   client's connection is reset.
 * - `heal()` ends every fault (a half-open or reset connection stays gone); `close()` destroys every
 *   connection and stops listening.
 */
import { type Socket, connect, createServer } from 'node:net';

export interface FaultProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  latency(ms: number, jitterMs?: number): void;
  bandwidth(bytesPerSecond: number): void;
  blackhole(): void;
  halfOpen(): void;
  resetMidReply(): void;
  heal(): void;
  close(): Promise<void>;
}

interface Faults {
  latencyMs: number;
  jitterMs: number;
  bytesPerSecond: number;
  blackhole: boolean;
  resetNextReply: boolean;
}

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  /** forgotten: the server side is gone (half-open); the client's next write is reset. */
  forgotten: boolean;
}

const healthy = (): Faults => ({ latencyMs: 0, jitterMs: 0, bytesPerSecond: 0, blackhole: false, resetNextReply: false });

/** faultProxy listens on a free port of 127.0.0.1 and relays each connection to `host`:`port`. */
export async function faultProxy(host: string, port: number): Promise<FaultProxy> {
  let faults = healthy();
  let accepted = 0;
  const pairs = new Set<Pair>();

  const server = createServer((client) => {
    accepted++;
    const upstream = connect(port, host);
    const pair: Pair = { client, upstream, forgotten: false };
    pairs.add(pair);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', () => (pair.forgotten ? pairs.delete(pair) : end()));
    upstream.on('error', () => (pair.forgotten ? undefined : end())).on('close', () => (pair.forgotten ? undefined : end()));
    const toServer = lane(upstream);
    const toClient = lane(client);
    client.on('data', (chunk: Buffer) => {
      if (pair.forgotten) return void client.resetAndDestroy();
      toServer(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (pair.forgotten) return;
      if (faults.resetNextReply && !faults.blackhole) {
        faults.resetNextReply = false;
        client.write(chunk.subarray(0, Math.max(1, chunk.length >> 1)), () => {
          client.resetAndDestroy();
          upstream.destroy();
        });
        return;
      }
      toClient(chunk);
    });
  });

  /** held: the lanes' chunks that arrived during a blackhole, delivered in order at heal. */
  const held = new Map<(chunk: Buffer) => void, Buffer[]>();

  /**
   * lane writes chunks to `to` strictly in order (one queue, one timer: timers of different delays
   * may fire out of order), each after the latency and bandwidth in force when it arrived; during a
   * blackhole it holds them.
   */
  function lane(to: Socket): (chunk: Buffer) => void {
    const queue: { at: number; chunk: Buffer }[] = [];
    let freeAt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pump = (): void => {
      timer = undefined;
      const now = performance.now();
      while (queue.length > 0 && (queue[0] as { at: number }).at <= now) {
        const { chunk } = queue.shift() as { chunk: Buffer };
        if (!to.destroyed) to.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(pump, Math.max(1, (queue[0] as { at: number }).at - now));
    };
    const send = (chunk: Buffer): void => {
      if (faults.blackhole || held.has(send)) {
        const waiting = held.get(send) ?? [];
        waiting.push(chunk);
        held.set(send, waiting);
        return;
      }
      const { latencyMs, jitterMs, bytesPerSecond } = faults;
      const now = performance.now();
      const transfer = bytesPerSecond > 0 ? (chunk.length / bytesPerSecond) * 1000 : 0;
      freeAt = Math.max(freeAt, now + latencyMs + Math.random() * jitterMs) + transfer;
      queue.push({ at: freeAt, chunk });
      if (timer === undefined) pump();
    };
    return send;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get accepted() {
      return accepted;
    },
    latency(ms, jitterMs = 0) {
      faults.latencyMs = ms;
      faults.jitterMs = jitterMs;
    },
    bandwidth(bytesPerSecond) {
      faults.bytesPerSecond = bytesPerSecond;
    },
    blackhole() {
      faults.blackhole = true;
    },
    halfOpen() {
      for (const pair of pairs) {
        pair.forgotten = true;
        pair.upstream.destroy();
      }
    },
    resetMidReply() {
      faults.resetNextReply = true;
    },
    heal() {
      faults = healthy();
      const lanes = [...held];
      held.clear();
      for (const [send, chunks] of lanes) for (const chunk of chunks) send(chunk);
    },
    close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
