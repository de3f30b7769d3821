/**
 * clientKey is express-rate-limit's `ipKeyGenerator(ip, ipv6Subnet)` in ratekeeper: the key of a client
 * IP (ipKey's: IPv4 as its dotted quad, IPv6 grouped by its /56 prefix or `ipv6Subnet`, IPv4-mapped
 * IPv6 unwrapped), typed `string`, so `key: (req) => req.get('x-api-key') ?? clientKey(req.ip)` compiles
 * where `ipKey(req.ip)` (string | undefined) does not.
 *
 * An absent IP (undefined, null, "", a value that is no client's address, the unspecified address) has
 * no key, and never becomes a shared one: clientKey throws a MissingIpError, which an adapter's key
 * function passes to the adapter's `missingIp` policy, as for the default key: 'reject' (default) sends
 * it to the framework's error path (a 500 naming the trust-proxy setting), 'skip' lets the request
 * through uncounted. Outside an adapter, catch it or use ipKey.
 */
import { MissingIpError } from '../decide/errors.js';
import { DEFAULT_IPV6_SUBNET, ipKey } from './ip.js';

/** clientKey is the limiter key for a client IP; it throws a MissingIpError when `ip` is no client's address. */
export function clientKey(ip: string | undefined | null, ipv6Subnet = DEFAULT_IPV6_SUBNET): string {
  const key = ipKey(ip, ipv6Subnet);
  if (key === undefined) throw new MissingIpError('clientKey');
  return key;
}
