import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Conn = Kysely<Database> | Transaction<Database>;

/**
 * The repository's state from its uploads: pending or processing while any waits, failed when the
 * newest failed, complete once one has completed. Each lookup is one indexed probe.
 */
export async function refreshRepoState(
  conn: Conn,
  repositoryId: string,
  times: { lastUploadAt?: string; lastCompletedAt?: string },
): Promise<void> {
  const active = await conn.selectFrom('uploads').select('status')
    .where('repository_id', '=', repositoryId).where('status', 'in', ['pending', 'processing'])
    .orderBy('status', 'desc').limit(1).executeTakeFirst();
  let state: string;
  if (active) {
    state = active.status;
  } else {
    const newest = await conn.selectFrom('uploads').select('status').where('repository_id', '=', repositoryId)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    state = newest ? newest.status : 'never_scanned';
  }
  await upsertStatus(conn, repositoryId, { state, ...definedTimes(times) });
}

/** Sums the repository's analyses into its status row: a handful of rows, whatever the findings. */
export async function refreshRepoTotals(conn: Conn, repositoryId: string): Promise<void> {
  const totals = await conn.selectFrom('analyses')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('open_critical'), eb.lit(0)).as('open_critical'),
      eb.fn.coalesce(eb.fn.sum<number>('open_high'), eb.lit(0)).as('open_high'),
      eb.fn.coalesce(eb.fn.sum<number>('open_medium'), eb.lit(0)).as('open_medium'),
      eb.fn.coalesce(eb.fn.sum<number>('open_low'), eb.lit(0)).as('open_low'),
      eb.fn.coalesce(eb.fn.sum<number>('open_info'), eb.lit(0)).as('open_info'),
      eb.fn.coalesce(eb.fn.sum<number>('components'), eb.lit(0)).as('components'),
    ])
    .where('repository_id', '=', repositoryId).executeTakeFirstOrThrow();
  await conn.updateTable('repo_status').set({
    open_critical: Number(totals.open_critical),
    open_high: Number(totals.open_high),
    open_medium: Number(totals.open_medium),
    open_low: Number(totals.open_low),
    open_info: Number(totals.open_info),
    components: Number(totals.components),
  }).where('repository_id', '=', repositoryId).execute();
}

async function upsertStatus(conn: Conn, repositoryId: string, values: { state: string; last_upload_at?: string; last_completed_at?: string }) {
  await conn.insertInto('repo_status')
    .values({
      repository_id: repositoryId, state: values.state,
      last_upload_at: values.last_upload_at ?? null, last_completed_at: values.last_completed_at ?? null,
      open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0,
    })
    .onConflict((oc) => oc.column('repository_id').doUpdateSet(values))
    .execute();
}

function definedTimes(times: { lastUploadAt?: string; lastCompletedAt?: string }) {
  return {
    ...(times.lastUploadAt ? { last_upload_at: times.lastUploadAt } : {}),
    ...(times.lastCompletedAt ? { last_completed_at: times.lastCompletedAt } : {}),
  };
}
