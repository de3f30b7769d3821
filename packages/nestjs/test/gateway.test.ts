/**
 * A real WebSocket gateway (@nestjs/platform-ws over a listening Nest application) behind the guard:
 * each message is a call, keyed by the address of the client's socket; a denial is a
 * RateLimitException, which a WS exception filter of the user's answers (here with the retry time).
 * A concurrency limit's lease is held until the handler's observable completes (RateLimitInterceptor,
 * registered by the module), not when the guard returns; the mutant that releases it there lets a
 * second stream run at once and is caught.
 */
import 'reflect-metadata';
import { type ArgumentsHost, Catch, type ExecutionContext, Injectable, Module, type Type, UseFilters, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WsAdapter } from '@nestjs/platform-ws';
import { BaseWsExceptionFilter, SubscribeMessage, WebSocketGateway, type WsResponse } from '@nestjs/websockets';
import { ManualClock } from '@ratekeeper/core';
import { Subject, map } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RateLimit, RateLimitException, RateLimitGuard, RateLimitModule } from '../src/index.js';
import { takePending } from '../src/work.js';

/** The mutant: a lease ends when the guard returns (the handler's stream still running). */
@Injectable()
class ReleasesAtGuard extends RateLimitGuard {
  override async canActivate(context: ExecutionContext) {
    const ok = await super.canActivate(context);
    for (const settle of takePending(context.getArgs()) ?? []) settle({ status: 200, aborted: false, contentLength: undefined });
    return ok;
  }
}

@Catch(RateLimitException)
class TooManyOverWs extends BaseWsExceptionFilter {
  override catch(exception: RateLimitException, host: ArgumentsHost): void {
    host
      .switchToWs()
      .getClient<WebSocket>()
      .send(JSON.stringify({ event: 'rate-limited', data: { retryAfterMs: exception.decision.retryAfterMs } }));
  }
}

const streams: Subject<number>[] = [];
const apps: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  streams.length = 0;
});

function gatewayApp(guard: Type<RateLimitGuard>): Type {
  @UseFilters(new TooManyOverWs())
  @UseGuards(guard)
  @WebSocketGateway({ path: '/ws' })
  class EchoGateway {
    @SubscribeMessage('echo')
    echo(_client: WebSocket, data: string): WsResponse<string> {
      return { event: 'echo', data };
    }

    @RateLimit({ streams: { algorithm: 'concurrency', limit: 1 } })
    @SubscribeMessage('stream')
    stream() {
      const subject = new Subject<number>();
      streams.push(subject);
      return subject.pipe(map((n): WsResponse<number> => ({ event: 'tick', data: n })));
    }
  }
  @Module({ imports: [RateLimitModule.forRoot({ limit: 3, windowMs: 60_000, clock: new ManualClock(0) })], providers: [EchoGateway] })
  class GatewayModule {}
  return GatewayModule;
}

/** connect starts the app with `guard` and opens one client; `next()` resolves with the server's next message. */
async function connect(guard: Type<RateLimitGuard> = RateLimitGuard) {
  const app = await NestFactory.create(gatewayApp(guard), { logger: false, abortOnError: false });
  app.useWebSocketAdapter(new WsAdapter(app));
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('http', 'ws').replace('[::1]', '127.0.0.1');
  const ws = new WebSocket(`${url}/ws`);
  apps.push({ close: async () => ws.close() });
  const inbox: { event: string; data: unknown }[] = [];
  const waiters: ((m: { event: string; data: unknown }) => void)[] = [];
  ws.on('message', (raw) => {
    const message = JSON.parse(String(raw)) as { event: string; data: unknown };
    const waiter = waiters.shift();
    if (waiter !== undefined) waiter(message);
    else inbox.push(message);
  });
  await new Promise((resolve) => ws.once('open', resolve));
  const next = () => new Promise<{ event: string; data: unknown }>((resolve) => (inbox.length > 0 ? resolve(inbox.shift()!) : waiters.push(resolve)));
  const send = (event: string, data: unknown = null) => ws.send(JSON.stringify({ event, data }));
  return { send, next };
}

describe('a WebSocket gateway behind the guard', () => {
  it('counts each message under the socket address: 3 echoes, then a denial the user filter answers with the retry time', async () => {
    const { send, next } = await connect();
    const got: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      send('echo', `m${i}`);
      got.push(await next());
    }
    expect(got).toEqual([
      { event: 'echo', data: 'm0' },
      { event: 'echo', data: 'm1' },
      { event: 'echo', data: 'm2' },
      { event: 'rate-limited', data: { retryAfterMs: 60_000 } },
    ]);
  });

  it("holds a stream's concurrency lease until its observable completes", async () => {
    const { send, next } = await connect();
    send('stream');
    await expect.poll(() => streams.length).toBe(1);
    streams[0]!.next(1);
    expect(await next()).toEqual({ event: 'tick', data: 1 });
    send('stream');
    expect(await next()).toEqual({ event: 'rate-limited', data: { retryAfterMs: 1000 } });
    streams[0]!.complete();
    send('stream');
    await expect.poll(() => streams.length).toBe(2);
  });

  it('the same check catches a guard that ends the lease when it returns (mutant)', async () => {
    const { send } = await connect(ReleasesAtGuard);
    send('stream');
    await expect.poll(() => streams.length).toBe(1);
    send('stream');
    await expect.poll(() => streams.length).toBe(2);
  });
});
