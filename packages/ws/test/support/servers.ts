/**
 * Real servers for the tests: a `ws` WebSocketServer and a socket.io v4 Server attached to a Node HTTP
 * server on 127.0.0.1, and clients that connect to them over loopback. Waits are for events of the
 * real sockets (a message, a close), never sleeps.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as IoServer } from 'socket.io';
import { io as ioClient, type Socket as IoClient } from 'socket.io-client';
import { WebSocket, WebSocketServer } from 'ws';

export interface WsServed {
  readonly url: string;
  readonly http: Server;
  readonly wss: WebSocketServer;
  /** Every message the server received, before any limit. */
  raw: number;
  close(): Promise<void>;
}

/** serveWs attaches a WebSocketServer to a new HTTP server; `onConnection` wires each socket. */
export async function serveWs(onConnection: (socket: WebSocket, req: IncomingMessage) => void): Promise<WsServed> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const served = {
    url: '',
    http,
    wss,
    raw: 0,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  wss.on('connection', (socket, req) => {
    socket.on('message', () => served.raw++);
    onConnection(socket, req);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  served.url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return served;
}

/** open connects a ws client and resolves once it is open. */
export function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** closed resolves with the close code and reason a client receives. */
export function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

/** until resolves once `check()` holds, testing it after each event of `emitter` named `event`. */
export function until(check: () => boolean, emitter: { on(e: string, f: () => void): unknown; off(e: string, f: () => void): unknown }, event: string): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve) => {
    const test = () => {
      if (!check()) return;
      emitter.off(event, test);
      resolve();
    };
    emitter.on(event, test);
  });
}

export interface IoServed {
  readonly url: string;
  readonly io: IoServer;
  close(): Promise<void>;
}

export async function serveIo(wire: (io: IoServer) => void): Promise<IoServed> {
  const http = createServer();
  const io = new IoServer(http);
  wire(io);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, io, close: () => new Promise((resolve) => io.close(() => resolve())) };
}

/** connectIo connects a socket.io client (WebSocket transport) and resolves once connected. */
export function connectIo(url: string): Promise<IoClient> {
  const socket = ioClient(url, { transports: ['websocket'], reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}
