import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { AdvisorySourcesTable, Database } from '../db/schema.js';
import { inFuture, now } from '../db/time.js';

export type AdvisorySourceRow = Selectable<AdvisorySourcesTable>;
export type SourceOutcome = Updateable<AdvisorySourcesTable>;

/** The sync URLs' rows: their validators, last outcome, and the lease one instance holds while fetching. */
export function sourceStore(db: Kysely<Database>) {
  return {
    /** The source's row with a fresh lease token, or undefined when another instance holds it. */
    async take(url: string, leaseMs: number): Promise<(AdvisorySourceRow & { lease_token: string }) | undefined> {
      await db.insertInto('advisory_sources').values({ url }).onConflict((oc) => oc.column('url').doNothing()).execute();
      const token = randomUUID();
      const taken = await db.updateTable('advisory_sources').set({ lease_until: inFuture(leaseMs), lease_token: token })
        .where('url', '=', url).where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now())]))
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 0) return undefined;
      const row = await db.selectFrom('advisory_sources').selectAll().where('url', '=', url).executeTakeFirstOrThrow();
      return { ...row, lease_token: token };
    },

    /** Records the attempt and lets the lease go, if this instance still holds it. */
    async finish(url: string, token: string, outcome: SourceOutcome): Promise<void> {
      await db.updateTable('advisory_sources').set({ ...outcome, checked_at: now(), lease_until: null, lease_token: null })
        .where('url', '=', url).where('lease_token', '=', token).execute();
    },

    list(urls: string[]): Promise<AdvisorySourceRow[]> {
      if (urls.length === 0) return Promise.resolve([]);
      return db.selectFrom('advisory_sources').selectAll().where('url', 'in', urls).execute();
    },
  };
}
