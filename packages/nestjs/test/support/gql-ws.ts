/**
 * A graphql-ws client over the `ws` package (Node 20 has no global WebSocket) that subscribes once
 * and collects what the server sends until the subscription completes or fails.
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

export interface Subscribed {
  readonly values: unknown[];
  readonly errors: { message: string; extensions?: Record<string, unknown> }[];
}

/** subscribe runs `query` on the server at `url` (http://…) to its end. */
export async function subscribe(url: string, query: string): Promise<Subscribed> {
  const client = createClient({ url: `${url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
  const values: unknown[] = [];
  const errors: Subscribed['errors'] = [];
  try {
    await new Promise<void>((resolve) => {
      client.subscribe(
        { query },
        {
          next: (result) => {
            if (result.errors !== undefined) errors.push(...(result.errors as Subscribed['errors']));
            if (result.data !== undefined && result.data !== null) values.push(result.data);
          },
          error: (error) => {
            errors.push(...(Array.isArray(error) ? error : [{ message: String((error as Error).message ?? error) }]));
            resolve();
          },
          complete: resolve,
        },
      );
    });
  } finally {
    await client.dispose();
  }
  return { values, errors };
}
