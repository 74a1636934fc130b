import { sql, type Kysely } from 'kysely';
import type { Database, ForgeDeliveryRow } from '../db/schema.js';
import type { Dialect } from '../db/index.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import type { AttemptColumns, NextStep } from '../jobs/outbox.js';
import type { PrFeedback } from './types.js';


/** SQL of forge deliveries (the verdict outbox), pull request threads and the pr_feedback settings. */
export function verdictStore(db: Kysely<Database>, dialect: Dialect) {
  /** Only while the claim is still this worker's (`attempts` is its fencing token). */
  const held = (delivery: ForgeDeliveryRow) => db.updateTable('forge_deliveries')
    .where('id', '=', delivery.id).where('status', '=', 'delivering').where('attempts', '=', delivery.attempts);

  return {
    /** The sign-in provider the repository's organisation is linked to on its forge, or null. */
    async linkedProviderOf(repositoryId: string): Promise<string | null> {
      const row = await db.selectFrom('repos').innerJoin('forge_links', 'forge_links.org_id', 'repos.org_id')
        .select('forge_links.provider_id').where('repos.id', '=', repositoryId).executeTakeFirst();
      return row?.provider_id ?? null;
    },

    page(repositoryId: string, page: Page): Promise<Paged<ForgeDeliveryRow>> {
      return paginate(db.selectFrom('forge_deliveries').where('repository_id', '=', repositoryId), page, (q) => q.selectAll().orderBy('id', 'desc'));
    },

    byId(repositoryId: string, id: string): Promise<ForgeDeliveryRow | undefined> {
      return db.selectFrom('forge_deliveries').selectAll().where('repository_id', '=', repositoryId).where('id', '=', id).executeTakeFirst();
    },

    /** Queues a finished delivery again, same id, as a fresh round; what it created stays known, so it is edited, not made again. */
    redeliver(repositoryId: string, id: string, at: string): Promise<ForgeDeliveryRow | undefined> {
      return db.updateTable('forge_deliveries')
        .set({ status: 'pending', attempts: 0, attempt_log: '[]', next_attempt_at: at, lease_until: null, completed_at: null, external_state: null })
        .where('repository_id', '=', repositoryId).where('id', '=', id).where('status', 'in', ['succeeded', 'failed'])
        .returningAll().executeTakeFirst();
    },

    /**
     * Takes the oldest due delivery that heads its thread (a pull request's, or a branch's, in one
     * category): nothing earlier of the same thread still waiting, so a later upload's verdict is
     * always sent after an earlier one's and stays. On PostgreSQL, SKIP LOCKED lets workers claim side by side.
     */
    async claim(at: string, leaseUntil: string): Promise<ForgeDeliveryRow | undefined> {
      const lock = dialect === 'postgres' ? sql`for update of d skip locked` : sql``;
      const result = await sql<ForgeDeliveryRow>`
        update forge_deliveries set status = 'delivering', attempts = attempts + 1, lease_until = ${leaseUntil}, last_attempt_at = ${at}
        where id = (
          select d.id from forge_deliveries d
          where ((d.status = 'pending' and d.next_attempt_at <= ${at}) or (d.status = 'delivering' and d.lease_until < ${at}))
            and not exists (
              select 1 from forge_deliveries e
              where e.repository_id = d.repository_id and e.thread = d.thread and e.id < d.id and e.status in ('pending', 'delivering')
            )
          order by d.next_attempt_at, d.id limit 1 ${lock}
        )
        and status in ('pending', 'delivering')
        returning *`.execute(db);
      const row = result.rows[0];
      return row ? { ...row, attempts: Number(row.attempts) } : undefined;
    },

    async renewLease(delivery: ForgeDeliveryRow, leaseUntil: string): Promise<boolean> {
      const result = await held(delivery).set({ lease_until: leaseUntil }).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** What the forge called what this delivery created, and how far it got, kept at once: a retry edits instead of creating again. */
    async saveExternal(delivery: ForgeDeliveryRow, externalId: string | null, state: unknown): Promise<void> {
      await held(delivery).set({ external_id: externalId, external_state: JSON.stringify(state) }).execute();
    },

    async setKind(delivery: ForgeDeliveryRow, kind: string): Promise<void> {
      await held(delivery).set({ kind }).execute();
    },

    /** The check run created when this upload arrived. */
    async startedCheck(uploadId: string | null, except: string): Promise<string | null> {
      if (uploadId === null) return null;
      const row = await db.selectFrom('forge_deliveries').select('external_id')
        .where('upload_id', '=', uploadId).where('kind', 'in', ['check_run', 'status']).where('external_id', 'is not', null).where('id', '!=', except)
        .orderBy('id').limit(1).executeTakeFirst();
      return row?.external_id ?? null;
    },

    async threadComment(repositoryId: string, thread: string): Promise<string | null> {
      const row = await db.selectFrom('forge_threads').select('comment_id').where('repository_id', '=', repositoryId).where('thread', '=', thread).executeTakeFirst();
      return row?.comment_id ?? null;
    },

    async saveThreadComment(repositoryId: string, thread: string, commentId: string): Promise<void> {
      await db.updateTable('forge_threads').set({ comment_id: commentId }).where('repository_id', '=', repositoryId).where('thread', '=', thread).execute();
    },

    /** Records an attempt (appended to its log) and what comes next; false when the claim was lost. */
    async record(delivery: ForgeDeliveryRow, outcome: AttemptColumns, next: NextStep, attempt: { status_code: number | null; at: string }): Promise<boolean> {
      const log = [...(JSON.parse(delivery.attempt_log) as unknown[]), attempt];
      const result = await held(delivery).set({
        ...outcome,
        attempt_log: JSON.stringify(log),
        status: next.status,
        lease_until: null,
        next_attempt_at: next.status === 'pending' ? next.nextAttemptAt : null,
        completed_at: next.status === 'pending' ? null : next.at,
      }).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async pruneFinished(olderThan: string): Promise<number> {
      const result = await db.deleteFrom('forge_deliveries').where('status', 'in', ['succeeded', 'failed']).where('completed_at', '<', olderThan).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async orgFeedback(orgId: string): Promise<PrFeedback | null> {
      const row = await db.selectFrom('org_pr_feedback').select('feedback').where('org_id', '=', orgId).executeTakeFirst();
      return row ? (JSON.parse(row.feedback) as PrFeedback) : null;
    },

    async repoFeedback(repositoryId: string): Promise<PrFeedback | null> {
      const row = await db.selectFrom('repo_pr_feedback').select('feedback').where('repository_id', '=', repositoryId).executeTakeFirst();
      return row ? (JSON.parse(row.feedback) as PrFeedback) : null;
    },

    async setOrgFeedback(orgId: string, feedback: PrFeedback): Promise<void> {
      const value = JSON.stringify(feedback);
      await db.insertInto('org_pr_feedback').values({ org_id: orgId, feedback: value })
        .onConflict((oc) => oc.column('org_id').doUpdateSet({ feedback: value })).execute();
    },

    /** null: the repository follows its organisation again. */
    async setRepoFeedback(repositoryId: string, feedback: PrFeedback | null): Promise<void> {
      if (feedback === null) {
        await db.deleteFrom('repo_pr_feedback').where('repository_id', '=', repositoryId).execute();
        return;
      }
      const value = JSON.stringify(feedback);
      await db.insertInto('repo_pr_feedback').values({ repository_id: repositoryId, feedback: value })
        .onConflict((oc) => oc.column('repository_id').doUpdateSet({ feedback: value })).execute();
    },
  };
}
export type VerdictStore = ReturnType<typeof verdictStore>;
