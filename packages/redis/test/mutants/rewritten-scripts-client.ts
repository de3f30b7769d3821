/**
 * MUTANTS of the Lua port, made by rewriting the scripts on their way to Redis: a client wrapper turns
 * every EVALSHA (or FCALL) of a script made in this process into an EVAL of its source passed through `rewrite`. The differential test
 * must catch each rewrite below, the traps a port falls into:
 *   - LOSSY_STATE stores the token bucket's state in single precision (4 bytes), the way a port that
 *     keeps state in a lossy format (floats, %.14g text) loses the fraction of its instants;
 *   - TRUNCATED_REPLY returns figures as Lua numbers, which Redis truncates to integers;
 *   - LATE_LOG_BOUNDARY keeps a sliding-log unit inside the window at exactly t + W (`<` for `<=`), the
 *     off-by-one a port of a rolling window makes at its boundary;
 *   - LATE_FIRST_REQUEST_BOUNDARY keeps a first-request window live at exactly its end (`<=` for `<`),
 *     the same off-by-one at the end of a key's own window;
 *   - FORGETFUL_LOG writes back only the units it adds, dropping those still inside the window with
 *     the ones that left (the slip of trimming the log by the wrong count);
 *   - WINDOW_TRIMMED_LOG writes back only the units inside the window at the decision instant (the
 *     port before this mutant was named): a booking decides ahead of now, and a refund that takes its
 *     units back finds the older units, still inside the window at now, gone. Random histories meet
 *     that order rarely (about one in 140), so ../sliding-log-refund-after-booking.test.ts catches it;
 *   - BOOKING_JUMPS_QUEUE books at the first instant the members admit, ignoring the bookings ahead
 *     (no first come, first served), and CANCEL_AFTER_INSTANT gives a booking back at or after its
 *     instant (the request may have gone): the cross-connection booking checks must catch both;
 *   - CAPPED_CHARGE records a fixed window's charge only while it fits the limit (rate-limiter-flexible's
 *     penalty ported as a consume), and FLOORED_USAGE rounds the sliding window's weighted previous
 *     count down where the step rounds it up: ../verbs.test.ts must catch both.
 */
import { scriptByFunction } from '../../src/lua/library.js';
import { scriptBySha } from '../../src/lua/scripts.js';

interface CallClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

export const LOSSY_STATE = (source: string) => source.replaceAll("'<d'", "'<f'").replace('#raw ~= 8', '#raw ~= 4');
export const TRUNCATED_REPLY = (source: string) => source.replace('local function num(x)', 'local function num(x) do return x end');

export const LATE_LOG_BOUNDARY = (source: string) =>
  source.replace('sl_entry(raw, n, L, mid) + W <= at', 'sl_entry(raw, n, L, mid) + W < at').replace('if nth + W > at then', 'if nth + W >= at then');
export const LATE_FIRST_REQUEST_BOUNDARY = (source: string) => source.replace('if now < stored + W then', 'if now <= stored + W then');
export const FORGETFUL_LOG = (source: string) => source.replace('if keep > 0 then kept = string.sub(raw, 8 * (n - keep) + 1) end', '');
export const WINDOW_TRIMMED_LOG = (source: string) => source.replace('local keep = L - cost\n', 'local keep = inside\n');

export const BOOKING_JUMPS_QUEUE = (source: string) => source.replace('if latest > at then at = latest end', '');
export const CANCEL_AFTER_INSTANT = (source: string) => source.replace('if not (now < at) then return 1 end', '');

export const CAPPED_CHARGE = (source: string) =>
  source.replace(
    "return ceil(start + W - now), pack('<dd', start, count + cost)",
    "local c = count + cost\n  if c > limit then c = count end\n  return ceil(start + W - now), pack('<dd', start, c)",
  );
export const FLOORED_USAGE = (source: string) =>
  source.replace('local used = current + ceil((previous * (W - (t - start))) / W)', 'local used = current + floor((previous * (W - (t - start))) / W)');

export function rewrittenScripts(client: CallClient, rewrite: (source: string) => string): CallClient {
  return {
    call(command, ...args) {
      const script = command === 'EVALSHA' ? scriptBySha(args[0] as string) : command === 'FCALL' ? scriptByFunction(args[0] as string) : undefined;
      if (script === undefined) return client.call(command, ...args);
      return client.call('EVAL', rewrite(script.source), ...args.slice(1));
    },
  };
}
