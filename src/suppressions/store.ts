import type { Insertable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SuppressionsTable } from '../db/schema.js';
import { paginate, type Page } from '../db/page.js';


export function suppressionStore(db: Db) {
  const { kysely } = db;
  return {
    async page(orgId: string, page: Page) {
      const paged = await paginate(kysely.selectFrom('suppressions').where('org_id', '=', orgId), page,
        (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id'));
      const counts = await this.counts(paged.items.map((s) => s.id));
      return { total: paged.total, items: paged.items.map((s) => ({ ...s, findings: counts.get(s.id) ?? 0 })) };
    },

    async get(orgId: string, id: string) {
      const row = await kysely.selectFrom('suppressions').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return row ? { ...row, findings: (await this.counts([id])).get(id) ?? 0 } : undefined;
    },

    /** How many fingerprints each rule holds dismissed. */
    async counts(ids: string[]): Promise<Map<string, number>> {
      if (ids.length === 0) return new Map();
      const rows = await kysely.selectFrom('dismissals').select((eb) => ['suppression_id', eb.fn.countAll<number>().as('n')])
        .where('suppression_id', 'in', ids).groupBy('suppression_id').execute();
      return new Map(rows.map((r) => [r.suppression_id!, Number(r.n)]));
    },

    async insert(row: Insertable<SuppressionsTable>): Promise<void> {
      await kysely.insertInto('suppressions').values(row).execute();
    },

    async remove(orgId: string, id: string): Promise<boolean> {
      const result = await kysely.deleteFrom('suppressions').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    repositoryIdsOf(orgId: string) {
      return kysely.selectFrom('repos').select('id').where('org_id', '=', orgId).execute();
    },

    /**
     * The open findings of a repository with what a rule looks at (a rule's creation reads them once),
     * a page at a time by the findings_identity index, so a repository of a million never sits in memory at once.
     */
    async *openFindings(repositoryId: string, pageSize = 1_000) {
      const analyses = await kysely.selectFrom('analyses').select(['id', 'tool']).where('repository_id', '=', repositoryId).execute();
      for (const analysis of analyses) {
        for (let after = ''; ;) {
          const rows = await kysely.selectFrom('findings').select(['repository_id', 'fingerprint', 'rule_id', 'file_path', 'purl'])
            .where('analysis_id', '=', analysis.id).where('fingerprint', '>', after).where('state', '=', 'open')
            .orderBy('fingerprint').limit(pageSize).execute();
          if (rows.length > 0) yield rows.map((row) => ({ ...row, tool: analysis.tool }));
          if (rows.length < pageSize) break;
          after = rows.at(-1)!.fingerprint;
        }
      }
    },

    /** The fingerprints a rule dismissed, by repository: what deleting it reopens. */
    async dismissedBy(id: string): Promise<Map<string, string[]>> {
      const rows = await kysely.selectFrom('dismissals').select(['repository_id', 'fingerprint']).where('suppression_id', '=', id).execute();
      const byRepository = new Map<string, string[]>();
      for (const row of rows) byRepository.set(row.repository_id, [...(byRepository.get(row.repository_id) ?? []), row.fingerprint]);
      return byRepository;
    },
  };
}
export type SuppressionStore = ReturnType<typeof suppressionStore>;
