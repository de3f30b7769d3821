/**
 * Server-sent events over HTTP: a concurrency limit's lease is held for the life of the `@Sse()`
 * stream (the response, watched by core), on both platforms, and given back when the handler's
 * observable completes and the response ends: a second stream is denied 429 meanwhile, a third after
 * the first ended is admitted.
 */
import 'reflect-metadata';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, type MessageEvent, Module, Sse } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { eventually } from '@ratekeeper/adapter-contract';
import { type Observable, Subject, map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { RateLimitGuard, RateLimitModule } from '../src/index.js';
import { PLATFORMS, serveNest } from './support/nest-app.js';

const streams: Subject<number>[] = [];

@Controller()
class EventsController {
  @Sse('/events')
  events(): Observable<MessageEvent> {
    const subject = new Subject<number>();
    streams.push(subject);
    return subject.pipe(map((n) => ({ data: { n } })));
  }
}

@Module({
  imports: [RateLimitModule.forRoot({ algorithm: 'concurrency', limit: 1, name: 'streams' })],
  controllers: [EventsController],
  providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
})
class EventsModule {}

/** open starts a GET and resolves with its status once the head arrives; `body` is what came so far, `ended` its end. */
function open(port: number, path: string) {
  let text = '';
  let ended: Promise<void> = Promise.resolve();
  const req = httpRequest({ host: '127.0.0.1', port, path });
  const status = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      ended = new Promise((done) => res.once('end', done));
      resolve(res.statusCode ?? 0);
    });
  });
  req.on('error', () => {});
  req.end();
  return { status, body: () => text, ended: () => ended, close: () => req.destroy() };
}

describe.each(PLATFORMS)('@Sse() on %s', (platform) => {
  it('holds the lease while the stream is open and gives it back when it completes', async () => {
    streams.length = 0;
    const { server, ready } = serveNest(platform, EventsModule);
    await ready;
    const { port } = server.address() as AddressInfo;
    const first = open(port, '/events');
    await eventually('the first stream started', () => streams.length === 1, 2000);
    streams[0]!.next(1);
    expect(await first.status).toBe(200);
    const second = open(port, '/events');
    expect(await second.status).toBe(429);
    expect(streams).toHaveLength(1);
    streams[0]!.complete();
    await first.ended();
    expect(first.body()).toContain('data: {"n":1}');
    const third = open(port, '/events');
    await eventually('a stream admitted once the first ended', () => streams.length === 2, 2000);
    streams[1]!.next(2);
    expect(await third.status).toBe(200);
    streams[1]!.complete();
  });
});
