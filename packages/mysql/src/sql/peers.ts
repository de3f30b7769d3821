/**
 * The peer count's beat on MySQL (core's Peers, @ratekeeper/core/store, counts and schedules): record
 * this process in `${table}_peers` at the server's clock, forget the members not seen for
 * MEMBER_TTL_MS, count the rest (a table of a few rows, one per live process). A beat decides nothing,
 * so it carries no deadline: one the server runs late is harmless.
 */
import { MEMBER_TTL_MS, Peers, type Remote, type Request, peerId } from '@ratekeeper/core/store';
import type { MySqlPool } from '../wire/client.js';
import type { Dialect } from './dialect.js';

/** mysqlPeers counts the processes deciding on the table through `remote`; `ready` makes sure the schema exists. */
export function mysqlPeers(remote: Remote, pool: MySqlPool, sql: Dialect, ready: () => Promise<void>): Peers {
  const beat: Request = {
    deadlined: false,
    async send(): Promise<unknown> {
      await ready();
      await pool.query(sql.beat, [peerId()]);
      await pool.query(sql.forgetPeers, [MEMBER_TTL_MS]);
      const [rows] = await pool.query(sql.countPeers);
      return Number((rows as { n: unknown }[])[0]?.n);
    },
  };
  return new Peers(remote, () => beat);
}
