import type { AnalysisRow } from '../db/schema.js';
import type { Db } from '../db/index.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { refreshRefTotals, syncRepoStatus } from '../results/status-store.js';

export type AnalysisWithRef = AnalysisRow & { ref_kind: string; ref_name: string };

export interface RemovedAnalysis {
  analysis: AnalysisRow;
  findings: number;
  components: number;
}

export function analysisStore(db: Db) {
  const { kysely, dialect } = db;
  return {
    page(repositoryId: string, page: Page): Promise<Paged<AnalysisWithRef>> {
      const filtered = kysely.selectFrom('analyses').innerJoin('refs', 'refs.id', 'analyses.ref_id').where('analyses.repository_id', '=', repositoryId);
      return paginate(filtered, page, (q) => q.selectAll('analyses').select(['refs.kind as ref_kind', 'refs.name as ref_name'])
        .orderBy('refs.kind').orderBy('refs.name').orderBy('analyses.tool').orderBy('analyses.category').orderBy('analyses.format'));
    },

    /**
     * Deletes the analysis (its findings and components go with it by cascade) and sums the
     * repository's status again, in one transaction. The repository row is locked as ingest locks it,
     * so an upload being applied to the same repository finishes before or starts after, never half.
     */
    remove(repositoryId: string, analysisId: string): Promise<RemovedAnalysis | null> {
      return kysely.transaction().execute(async (trx) => {
        let lock = trx.selectFrom('repos').select('id').where('id', '=', repositoryId);
        if (dialect === 'postgres') lock = lock.forUpdate();
        if (!(await lock.executeTakeFirst())) return null;
        const analysis = await trx.selectFrom('analyses').selectAll()
          .where('id', '=', analysisId).where('repository_id', '=', repositoryId).executeTakeFirst();
        if (!analysis) return null;
        const [findings, components] = await Promise.all([
          trx.selectFrom('findings').select((eb) => eb.fn.countAll<number>().as('n')).where('analysis_id', '=', analysisId).executeTakeFirstOrThrow(),
          trx.selectFrom('components').select((eb) => eb.fn.countAll<number>().as('n')).where('analysis_id', '=', analysisId).executeTakeFirstOrThrow(),
        ]);
        await trx.deleteFrom('analyses').where('id', '=', analysisId).execute();
        // The ref's advisory matches no longer follow from its components (the deleted analysis's, or
        // the matches themselves, are gone): its next SBOM is matched in full (scans/ingest.ts).
        await trx.updateTable('refs').set({ components_unchecked: null }).where('id', '=', analysis.ref_id).execute();
        await refreshRefTotals(trx, analysis.ref_id);
        await syncRepoStatus(trx, repositoryId);
        return { analysis, findings: Number(findings.n), components: Number(components.n) };
      });
    },
  };
}
export type AnalysisStore = ReturnType<typeof analysisStore>;
