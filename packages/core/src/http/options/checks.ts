/**
 * The option registry's checks: for every option about the request and the answer (REQUEST_OPTIONS and
 * ANSWER_OPTIONS in ./options.ts), its default and the validator that reads it, in one table. Each
 * check takes the caller's value (undefined when the option is absent) and answers it resolved: the
 * default for an absent option (only an absent one: null is refused like any other wrong value), the
 * value itself when valid. A wrong value throws at construction, a TypeError (a RangeError for a number
 * out of range) naming the owner, the option and the value. The limiter options are checked where the
 * limiter is chosen (./shorthand.ts, ./plans.ts); `mode` and `maxDelayMs` also depend on the limiters
 * and on `shadow`, so ../decide/delay.ts checks them together once the limiters are known (their
 * defaults are here too). What users read on hover is the JSDoc of the option types; a test holds
 * every option listed here to a JSDoc that names its default.
 */
import { type Telemetry, checkTelemetry } from '../../telemetry.js';
import { describeValue } from '../../validate.js';
import { DEFAULT_IPV6_SUBNET, checkIpv6Subnet } from '../client/ip.js';
import { IpList } from '../client/ip-list.js';
import { DEFAULT_MAX_DELAY_MS } from '../decide/delay.js';
import { type HeaderStyle, checkHeaderStyle } from '../respond/headers.js';
import { DEFAULT_ABANDONED_MS } from '../settle/work.js';
import { ANSWER_OPTIONS, REQUEST_OPTIONS } from './options.js';

type AnyFunction = (...args: never[]) => unknown;

/** The defaults of the options that have one (the function options default to "none"). */
export const DEFAULTS = {
  headers: 'draft-10',
  ipv6Subnet: DEFAULT_IPV6_SUBNET,
  missingIp: 'reject',
  shadow: false,
  proxyWarning: true,
  abandonedMs: DEFAULT_ABANDONED_MS,
  mode: 'limit',
  maxDelayMs: DEFAULT_MAX_DELAY_MS,
} as const;

const fn =
  (name: string) =>
  (owner: string, value: unknown): AnyFunction | undefined => {
    if (value !== undefined && typeof value !== 'function') throw new TypeError(`${owner}: ${name} must be a function, got ${describeValue(value)}`);
    return value as AnyFunction | undefined;
  };

const bool =
  (name: 'shadow' | 'proxyWarning') =>
  (owner: string, value: unknown): boolean => {
    if (value === undefined) return DEFAULTS[name];
    if (typeof value !== 'boolean') throw new TypeError(`${owner}: ${name} must be a boolean, got ${describeValue(value)}`);
    return value;
  };

const list =
  (name: 'allowList' | 'denyList') =>
  (owner: string, value: unknown): IpList | undefined =>
    value === undefined ? undefined : new IpList(value as readonly string[], owner, name);

/** The mode options are resolved with the limiters (../decide/delay.ts): here they pass as given. */
const asGiven = (_owner: string, value: unknown): unknown => value;

/** CHECKS: every request and answer option's validator, each answering the resolved value. */
export const CHECKS = {
  key: fn('key'),
  cost: fn('cost'),
  skip: fn('skip'),
  ipv6Subnet: (owner: string, value: unknown): number => checkIpv6Subnet(owner, value === undefined ? DEFAULTS.ipv6Subnet : value),
  missingIp: (owner: string, value: unknown): 'reject' | 'skip' => {
    if (value === undefined) return DEFAULTS.missingIp;
    if (value !== 'reject' && value !== 'skip') throw new TypeError(`${owner}: missingIp must be 'reject' or 'skip', got ${describeValue(value)}`);
    return value;
  },
  allowList: list('allowList'),
  denyList: list('denyList'),
  headers: (owner: string, value: unknown): HeaderStyle => checkHeaderStyle(owner, value === undefined ? DEFAULTS.headers : value),
  shadow: bool('shadow'),
  onDecision: fn('onDecision'),
  telemetry: (owner: string, value: unknown): Telemetry | undefined => (value === undefined ? undefined : checkTelemetry(owner, value)),
  proxyWarning: bool('proxyWarning'),
  countOutcome: fn('countOutcome'),
  settle: fn('settle'),
  abandonedMs: (owner: string, value: unknown): number => {
    if (value === undefined) return DEFAULTS.abandonedMs;
    if (value === Infinity || (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 2 ** 31 - 1)) return value as number;
    const message = `${owner}: abandonedMs must be a whole number of milliseconds from 0 to 2147483647, or Infinity, got ${describeValue(value)}`;
    throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
  },
  mode: asGiven,
  maxDelayMs: asGiven,
} satisfies Record<(typeof REQUEST_OPTIONS)[number] | (typeof ANSWER_OPTIONS)[number], (owner: string, value: unknown) => unknown>;

/** Checked is what checkOptions answers: each option resolved by its check. */
export type Checked = { readonly [K in keyof typeof CHECKS]: ReturnType<(typeof CHECKS)[K]> };

/** checkOptions runs every check of the registry over `o`, in the registry's order (the first wrong option throws). */
export function checkOptions(owner: string, o: Readonly<Record<string, unknown>>): Checked {
  const checked: Record<string, unknown> = {};
  for (const name of [...REQUEST_OPTIONS, ...ANSWER_OPTIONS]) checked[name] = CHECKS[name](owner, o[name]);
  return checked as Checked;
}
