import pg from 'pg';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DatabaseConfig, Dialect } from '../db/index.js';

/** Channel on which PostgreSQL tells every instance that an upload is complete or failed. */
const CHANNEL = 'scanyard_upload_settled';

/** In the transaction that settles the upload: PostgreSQL delivers the notice when it commits. */
export async function announceSettled(conn: Kysely<Database> | Transaction<Database>, dialect: Dialect, uploadId: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_notify(${CHANNEL}, ${uploadId})`.execute(conn);
}

export interface SettlementLog {
  warn(details: object, message: string): void;
}

/**
 * Requests waiting for uploads to settle. This instance's workers wake them directly after their
 * commit; on PostgreSQL one LISTEN connection also hears every other instance's. Nothing polls: a
 * waiter sleeps until woken or until its own deadline, then reads the upload once more.
 */
export function settlementWatch(database: DatabaseConfig) {
  const waiters = new Map<string, Set<() => void>>();
  let listener: Promise<pg.Client> | null = null;
  let closed = false;

  function settled(uploadId: string): void {
    const wake = waiters.get(uploadId);
    if (!wake) return;
    waiters.delete(uploadId);
    for (const resolve of wake) resolve();
  }

  function listen(log: SettlementLog): Promise<pg.Client> | null {
    if (database.kind !== 'postgres' || closed) return null;
    listener ??= (async () => {
      const client = new pg.Client({ connectionString: database.url });
      // A lost connection is opened again by the next waiter; waiters meanwhile keep their deadlines.
      client.on('error', (error) => {
        log.warn({ err: error }, 'the upload notification connection failed; reconnecting on the next wait');
        listener = null;
        client.end().catch(() => undefined);
      });
      client.on('notification', (message) => {
        if (message.channel === CHANNEL && message.payload) settled(message.payload);
      });
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
      return client;
    })();
    listener.catch(() => {
      listener = null;
    });
    return listener;
  }

  return {
    settled,

    /**
     * Resolves once `isSettled` is true, or after `ms`. The waiter is registered before the check,
     * so a settlement between the check and the sleep still wakes it.
     */
    async waitFor(uploadId: string, ms: number, isSettled: () => Promise<boolean>, log: SettlementLog): Promise<void> {
      if (closed) return;
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      const set = waiters.get(uploadId) ?? new Set();
      set.add(wake);
      waiters.set(uploadId, set);
      const timer = setTimeout(wake, ms);
      try {
        await listen(log)?.catch((error: unknown) => {
          log.warn({ err: error }, 'could not listen for upload notifications; waiting until the deadline');
        });
        if (!(await isSettled())) await woken;
      } finally {
        clearTimeout(timer);
        const current = waiters.get(uploadId);
        current?.delete(wake);
        if (current?.size === 0) waiters.delete(uploadId);
      }
    },

    /** Answers every waiter now (with the upload as it stands) and closes the LISTEN connection. */
    async close(): Promise<void> {
      closed = true;
      for (const id of [...waiters.keys()]) settled(id);
      const client = await listener?.catch(() => null);
      listener = null;
      await client?.end().catch(() => undefined);
    },
  };
}
export type SettlementWatch = ReturnType<typeof settlementWatch>;
