/**
 * Two sockets of one user, on two server processes, share the user's budget on Redis: each socket
 * sends 20 messages, the budget is 10 an hour, and the first refusal closes a socket with 1008, so
 * both sockets end closed and exactly 10 messages were handled in all (counted by their echoes, which
 * precede the close on each socket). Servers on a redis-server the test starts, each with its own
 * client and default store options. The mutant that keys each connection on its own handles 20.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RedisServer, startRedis } from '@ratekeeper/store-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMutant } from './support/mutants.js';
import { closed, open } from './support/servers.js';

let redis: RedisServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await redis?.stop();
});

async function server(dist?: string): Promise<string> {
  const args = [String(redis.port), ...(dist === undefined ? [] : [dist])];
  const child = fork(fileURLToPath(new URL('./support/user-server.mjs', import.meta.url)), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', resolve as never));
  return `ws://127.0.0.1:${port}`;
}

/** handledAcross opens one socket of `user` on each of two server processes, floods both, and counts what was handled. */
async function handledAcross(user: string, dist?: string): Promise<number> {
  const urls = await Promise.all([server(dist), server(dist)]);
  const sockets = await Promise.all(urls.map((url) => open(`${url}/?user=${user}`)));
  let echoes = 0;
  for (const socket of sockets) socket.on('message', () => echoes++);
  const ends = sockets.map(closed);
  for (let i = 0; i < 20; i++) for (const socket of sockets) socket.send(String(i));
  const codes = await Promise.all(ends);
  expect(codes.map((c) => c.code)).toEqual([1008, 1008]);
  return echoes;
}

describe('two sockets of one user on two processes', () => {
  it('share the user’s budget of 10 on Redis', async () => {
    expect(await handledAcross('ada')).toBe(10);
  });

  it('catch the per-connection-key mutant (each socket its own budget)', async () => {
    expect(await handledAcross('bob', buildMutant('per-connection-key'))).toBe(20);
  });
});
