import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { Page } from '../db/page.js';
import { notFound } from '../problem.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { AnalysisStore } from './store.js';

export function analysisService(analyses: AnalysisStore, authorizedRepo: AuthorizedRepo, audit: AuditStore) {
  return {
    async list(actor: Actor, repoId: string, page: Page) {
      await authorizedRepo(actor, repoId, 'analysis.read');
      return analyses.page(repoId, page);
    },

    /** Undoes a wrong upload's results without deleting the repository. */
    async remove(actor: Actor, repoId: string, analysisId: string, ip: string): Promise<void> {
      const repo = await authorizedRepo(actor, repoId, 'analysis.delete');
      const removed = await analyses.remove(repoId, analysisId);
      if (!removed) throw notFound('The analysis');
      const { tool, category, format } = removed.analysis;
      await audit.record({
        action: 'analysis.deleted', actor: actor.user, orgId: repo.org_id, ip, target: { type: 'analysis', id: analysisId },
        details: { repository_id: repoId, tool, category, format, findings: removed.findings, components: removed.components },
      });
    },
  };
}
