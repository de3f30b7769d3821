/**
 * An Invocation is one call the guard decides, found in whatever context Nest hands it: what the
 * user's hooks receive as `req` (with the ExecutionContext), the client address the default key
 * uses, where the rate-limit headers go, and the Node response whose end releases a lease.
 *
 * - `http` (Express or Fastify platform): the platform's request and response; the address is
 *   Express's `req.ip` (its `trust proxy` setting decides) or Fastify's `request.ip` (`trustProxy`).
 * - `graphql`: the resolver's context (its third argument), whichever driver built it: `req` (Apollo,
 *   Mercurius: the platform's request), `request` / `reply` (a context written for Fastify), `res`
 *   (Apollo on Express, or the request's own `req.res`). A subscription over graphql-ws has no HTTP
 *   request: its context's `extra.request` is the upgrade request, keyed by its socket's address, and
 *   it has no response (nestjs/throttler#1110 crashed here reading `ip` of undefined).
 * - `ws` (gateways): the client; the address is its socket's (`ws`: `_socket`, Socket.IO:
 *   `handshake.address`), and there is no response.
 * - anything else (`rpc`): the first argument, no address (give `key`), no response.
 * Nothing here throws: a context without a request is an Invocation without an address, which the
 * default key refuses loudly (core's MissingIpError) rather than crash on `undefined` (#2382).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { ExecutionContext } from '@nestjs/common';
import type { NodeResponse } from '@ratekeeper/core/adapter';

/** NestRequest is what a hook receives as `req`: the platform's request, the upgrade request of a subscription, or a gateway's client. */
// biome-ignore lint/suspicious/noExplicitAny: the platform's own request type (Express, Fastify, a socket), as @nestjs/throttler types it
export type NestRequest = Record<string, any>;

/** Where headers can be written: an Express (Node) response, or a Fastify reply. */
export type HeaderTarget = { readonly kind: 'node'; readonly res: NodeLike } | { readonly kind: 'fastify'; readonly reply: ReplyLike };

interface NodeLike {
  setHeader(name: string, value: string): unknown;
  appendHeader(name: string, value: string): unknown;
  getHeader(name: string): unknown;
  readonly headersSent: boolean;
}

interface ReplyLike {
  header(name: string, value: string): unknown;
  getHeader(name: string): unknown;
  getHeaders(): Record<string, unknown>;
  readonly sent: boolean;
  readonly raw: NodeLike;
}

export interface Invocation {
  readonly context: ExecutionContext;
  readonly req: NestRequest | undefined;
  readonly ip: string | undefined;
  /** Where the rate-limit headers go; undefined when there is no response (gateways, subscriptions). */
  readonly target: HeaderTarget | undefined;
  /** The Node response whose end is the end of the work (http and GraphQL over HTTP). */
  readonly raw: NodeResponse | undefined;
  /** The client's socket: a client gone, and delay mode's watch. */
  readonly socket: Socket | undefined;
}

/** invocationOf finds the request, address and response of `context` (see above). */
export function invocationOf(context: ExecutionContext): Invocation {
  const type = context.getType<string>();
  if (type === 'http') {
    const http = context.switchToHttp();
    return fromRequest(context, http.getRequest<NestRequest>(), http.getResponse<NestRequest>());
  }
  if (type === 'graphql') return fromGraphql(context, context.getArgByIndex<NestRequest | undefined>(2));
  if (type === 'ws') return fromClient(context, context.switchToWs().getClient<NestRequest>());
  return { context, req: context.getArgByIndex<NestRequest | undefined>(0), ip: undefined, target: undefined, raw: undefined, socket: undefined };
}

/** fromRequest reads a platform request and its response (either may be missing). */
function fromRequest(context: ExecutionContext, req: NestRequest | undefined, res: NestRequest | undefined): Invocation {
  if (req === undefined || req === null) return { context, req: undefined, ip: undefined, target: undefined, raw: undefined, socket: undefined };
  const fastify = isObject(req['raw']);
  const socket = (fastify ? req['raw'].socket : req['socket']) as Socket | undefined;
  const ip = typeof req['ip'] === 'string' ? (req['ip'] as string) : socket?.remoteAddress;
  const response = res ?? (fastify ? undefined : req['res']);
  const target = targetOf(response);
  const raw = target === undefined ? undefined : target.kind === 'node' ? target.res : target.reply.raw;
  return { context, req, ip, target, raw: raw as NodeResponse | undefined, socket };
}

/** fromGraphql reads a resolver's context, whichever driver built it (see above). */
function fromGraphql(context: ExecutionContext, gql: NestRequest | undefined): Invocation {
  if (!isObject(gql)) return { context, req: undefined, ip: undefined, target: undefined, raw: undefined, socket: undefined };
  const req = (gql['req'] ?? gql['request']) as NestRequest | undefined;
  const upgrade = upgradeOf(req) ?? upgradeOf(gql);
  if (upgrade !== undefined) return { context, req: upgrade, ip: upgrade.socket?.remoteAddress, target: undefined, raw: undefined, socket: upgrade.socket };
  return fromRequest(context, req, (gql['reply'] ?? gql['res']) as NestRequest | undefined);
}

/** upgradeOf is the upgrade request of a graphql-ws context (`extra.request`), if `ctx` is one. */
function upgradeOf(ctx: NestRequest | undefined): IncomingMessage | undefined {
  const extra = isObject(ctx) ? ctx['extra'] : undefined;
  const request = isObject(extra) ? extra['request'] : undefined;
  return isObject(request) && isObject(request['socket']) ? (request as IncomingMessage) : undefined;
}

/** fromClient reads a gateway's client: a `ws` WebSocket or a Socket.IO socket. */
function fromClient(context: ExecutionContext, client: NestRequest | undefined): Invocation {
  const socket = (isObject(client) ? (client['_socket'] ?? client['conn']?.request?.socket) : undefined) as Socket | undefined;
  const handshake = isObject(client) && isObject(client['handshake']) ? client['handshake']['address'] : undefined;
  const ip = socket?.remoteAddress ?? (typeof handshake === 'string' ? handshake : undefined);
  return { context, req: client, ip, target: undefined, raw: undefined, socket };
}

/** targetOf tells a Fastify reply (it has `raw`) from a Node/Express response. */
function targetOf(res: NestRequest | undefined): HeaderTarget | undefined {
  if (!isObject(res)) return undefined;
  if (isObject(res['raw']) && typeof res['header'] === 'function') return { kind: 'fastify', reply: res as unknown as ReplyLike };
  if (typeof res['setHeader'] === 'function') return { kind: 'node', res: res as unknown as NodeLike };
  return undefined;
}

function isObject(value: unknown): value is NestRequest {
  return typeof value === 'object' && value !== null;
}
