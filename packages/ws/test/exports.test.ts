/**
 * The public surface: the exact export list, and the built package loading with require() (a CommonJS
 * child that limits one ws connection on a real server and reports what its handler saw) and with
 * import on the running Node.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 20_000 });

const SERVE_ONE = `
  const { createServer } = require('node:http');
  const { WebSocketServer, WebSocket } = require('ws');
  const { FixedWindowLimiter } = require('@ratekeeper/core');
  const ws = require('@ratekeeper/ws');
  const limit = ws.messageLimit({ limiter: new FixedWindowLimiter({ limit: 2, windowMs: 60000 }), closeAfter: 1 });
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const seen = [];
  wss.on('connection', (socket, req) => socket.on('message', limit(socket, req, (data) => seen.push(String(data)))));
  http.listen(0, '127.0.0.1', () => {
    const client = new WebSocket('ws://127.0.0.1:' + http.address().port);
    client.on('open', () => { for (const m of ['a', 'b', 'c']) client.send(m); });
    client.on('close', (code) => {
      console.log(JSON.stringify([Object.keys(ws).sort(), seen, code]));
      wss.close(); http.close();
    });
  });`;

const EXPORTS = ['eventLimit', 'limitUpgrades', 'messageLimit'];

describe('@ratekeeper/ws', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(EXPORTS);
  });

  it('is require()d from CommonJS and limits a real connection', () => {
    expect(JSON.parse(node(['-e', SERVE_ONE]))).toEqual([EXPORTS, ['a', 'b'], 1008]);
  });

  it('is import()ed from ESM with the same names', () => {
    const out = node(['--input-type=module', '-e', "const m = await import('@ratekeeper/ws'); console.log(JSON.stringify(Object.keys(m).sort()))"]);
    expect(JSON.parse(out)).toEqual(EXPORTS);
  });
});
