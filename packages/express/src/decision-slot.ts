/**
 * `req.rateLimit` without a property added to the request.
 *
 * Express gives every request its app's prototype (`Object.setPrototypeOf(req, app.request)`), and on
 * that object V8 (Node 20) finds no cached hidden-class transition: each property then added to the
 * request builds a new hidden class, 1.6–1.9 µs a property against 0.3–0.4 µs for this slot
 * (benchmarks/NOTEBOOK.md, "Express: the property a request gains"). So the first time a request of an
 * app comes through, `rateLimit` becomes an accessor on that app's request prototype, its values in
 * one WeakMap keyed by request: `req.rateLimit` reads and writes like a property (any middleware may
 * set it, `undefined` until then) at the cost of a WeakMap entry instead.
 *
 * Only a prototype that is the app's own (`req.app.request`, Express 4 and 5) gets the accessor, and
 * only when it has no `rateLimit` of its own yet; anything else (a request Express did not prepare,
 * a prototype someone else gave a `rateLimit`) keeps the plain property. The accessor is not
 * enumerable and not an own property of the request: `Object.hasOwn(req, 'rateLimit')` is false.
 */
import type { Decision } from '@ratekeeper/core';

const decisions = new WeakMap<object, Decision | undefined>();

const SLOT: PropertyDescriptor = {
  configurable: true,
  enumerable: false,
  get(this: object): Decision | undefined {
    return decisions.get(this);
  },
  set(this: object, value: Decision | undefined) {
    decisions.set(this, value);
  },
};

/** Prototypes already looked at: true when `rateLimit` is our accessor there. */
const looked = new WeakMap<object, boolean>();
let lastProto: object | null = null;

interface ExpressRequest {
  readonly app?: { readonly request?: unknown };
}

/** slotted makes sure `req`'s prototype carries the accessor when it may, and returns `req`. */
export function slotted<Req extends object>(req: Req): Req {
  const proto = Object.getPrototypeOf(req) as object | null;
  if (proto === lastProto || proto === null) return req;
  let ours = looked.get(proto);
  if (ours === undefined) {
    ours = install(proto, (req as ExpressRequest).app?.request === proto);
    looked.set(proto, ours);
  }
  if (ours) lastProto = proto;
  return req;
}

function install(proto: object, appRequest: boolean): boolean {
  const own = Object.getOwnPropertyDescriptor(proto, 'rateLimit');
  if (own !== undefined) return own.get === SLOT.get;
  if (!appRequest || !Object.isExtensible(proto)) return false;
  Object.defineProperty(proto, 'rateLimit', SLOT);
  return true;
}
