/**
 * A pool whose every commit reply is lost: it runs every statement on the real server, but destroys its
 * connection as soon as a commit (CALL of the commit routine) has run, before the store reads the
 * reply, and answers the store what mysql2 answers for a connection closed under it. So every
 * transaction commits and never hears it.
 */
import type mysql from 'mysql2/promise';

/** lostCommits is `real` with every commit's reply lost (the commit itself runs). */
export function lostCommits(real: mysql.Pool) {
  return {
    query: (sql: string, values?: unknown[]) => real.query(sql, values),
    async getConnection() {
      const connection = await real.getConnection();
      return {
        async query(sql: string, values?: unknown[]) {
          const result = await connection.query(sql, values);
          if (!sql.startsWith('CALL')) return result;
          connection.destroy();
          throw Object.assign(new Error('Connection lost: The server closed the connection.'), { fatal: true, code: 'PROTOCOL_CONNECTION_LOST' });
        },
        release: () => connection.release(),
        destroy: () => connection.destroy(),
      };
    },
  };
}
