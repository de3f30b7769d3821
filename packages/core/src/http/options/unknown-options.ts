/**
 * refuseUnknownOptions is the adapters' unknown-option check (prepareRateLimit, and so Fastify's
 * per-route `config.rateLimit` too): a name that is no option is a TypeError, never silently ignored
 * while its default runs, and the error says what to write instead when it can:
 * - a name another rate limiter uses gets its translation (./peer-options.ts), naming the adapter:
 *   `unknown option "max" of @ratekeeper/express: ratekeeper calls it "limit" …`;
 * - else a name within a typo or two of an option gets that option (./closest.ts):
 *   `unknown option "limt": did you mean "limit"?`;
 * - else it is refused as it is: `unknown option "frobnicate"`.
 * The first unknown name, in the object's key order, is the one reported.
 */
import { describeValue } from '../../validate.js';
import { closestName } from './closest.js';
import type { Framework } from './handler-hints.js';
import { adapterName } from './peer-code.js';
import { peerOption } from './peer-options.js';

/**
 * refuseUnknownOptions throws for the first own key of `options` in neither `known` nor `extra` (the
 * adapter's own options); a translation is written for `framework` where it differs by framework.
 */
export function refuseUnknownOptions(owner: string, options: object, known: ReadonlySet<string>, extra: readonly string[], framework?: Framework): void {
  for (const name of Object.keys(options)) {
    if (known.has(name) || extra.includes(name)) continue;
    const peer = peerOption(name, framework);
    const adapter = adapterName(framework);
    if (peer !== undefined) throw new TypeError(`${owner}: unknown option ${describeValue(name)}${adapter === undefined ? '' : ` of ${adapter}`}: ${peer}`);
    const near = closestName(name, [...known, ...extra]);
    throw new TypeError(`${owner}: unknown option ${describeValue(name)}${near === undefined ? '' : `: did you mean ${describeValue(near)}?`}`);
  }
}
