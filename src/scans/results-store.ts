import type { Kysely } from 'kysely';
import type { ComponentRow, Database, FindingRow } from '../db/schema.js';
import type { Page } from '../http/pagination.js';
import type { Severity } from './parsers/types.js';
import { SEVERITY_RANK } from './severity.js';
import { containsIgnoringCase } from '../db/like.js';

export interface FindingFilters {
  state: 'open' | 'fixed' | 'all';
  severity?: Severity;
  tool?: string;
  q?: string;
}

export type FindingWithAnalysis = FindingRow & { tool: string; category: string; format: string };
export type ComponentWithTool = ComponentRow & { tool: string };

const SEVERITY_COLUMN = {
  critical: 'open_critical', high: 'open_high', medium: 'open_medium', low: 'open_low', info: 'open_info',
} as const;

/** Reads of scan results. Totals come from the aggregates where the filters allow, so a page costs the same at any size. */
export function resultsStore(db: Kysely<Database>) {
  return {
    analyses(repositoryId: string) {
      return db.selectFrom('analyses')
        .innerJoin('uploads', 'uploads.id', 'analyses.last_upload_id')
        .selectAll('analyses').select('uploads.status as upload_status')
        .where('analyses.repository_id', '=', repositoryId)
        .orderBy('analyses.tool').orderBy('analyses.category').orderBy('analyses.format').execute();
    },

    async findings(repositoryId: string, filters: FindingFilters, page: Page): Promise<{ total: number; items: FindingWithAnalysis[] }> {
      let query = db.selectFrom('findings').innerJoin('analyses', 'analyses.id', 'findings.analysis_id')
        .where('findings.repository_id', '=', repositoryId);
      if (filters.state !== 'all') query = query.where('findings.state', '=', filters.state);
      if (filters.severity) query = query.where('findings.severity_rank', '=', SEVERITY_RANK[filters.severity]);
      if (filters.tool) query = query.where('analyses.tool', '=', filters.tool);
      if (filters.q) {
        const q = filters.q;
        query = query.where((eb) => eb.or(['findings.rule_id', 'findings.message', 'findings.file_path']
          .map((column) => containsIgnoringCase(column, q))));
      }
      const items = await query.selectAll('findings').select(['analyses.tool', 'analyses.category', 'analyses.format'])
        .orderBy('findings.severity_rank', 'desc').orderBy('findings.id')
        .limit(page.perPage).offset(page.offset).execute();
      const total = (await this.aggregateTotal(repositoryId, filters))
        ?? Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      return { total, items };
    },

    /** Open findings (by severity and tool) and fixed ones are counted as uploads complete. */
    async aggregateTotal(repositoryId: string, filters: FindingFilters): Promise<number | null> {
      if (filters.q || filters.state === 'all' || (filters.state === 'fixed' && filters.severity)) return null;
      let query = db.selectFrom('analyses').where('repository_id', '=', repositoryId);
      if (filters.tool) query = query.where('tool', '=', filters.tool);
      const rows = await query.select(['open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'fixed_total']).execute();
      return rows.reduce((sum, row) => {
        if (filters.state === 'fixed') return sum + row.fixed_total;
        if (filters.severity) return sum + row[SEVERITY_COLUMN[filters.severity]];
        return sum + row.open_critical + row.open_high + row.open_medium + row.open_low + row.open_info;
      }, 0);
    },

    async components(repositoryId: string, q: string | undefined, page: Page): Promise<{ total: number; items: ComponentWithTool[] }> {
      let query = db.selectFrom('components').innerJoin('analyses', 'analyses.id', 'components.analysis_id')
        .where('components.repository_id', '=', repositoryId);
      if (q) {
        query = query.where((eb) => eb.or(['components.name', 'components.purl']
          .map((column) => containsIgnoringCase(column, q))));
      }
      const [count, items] = await Promise.all([
        query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        query.selectAll('components').select('analyses.tool')
          .orderBy('components.name').orderBy('components.id').limit(page.perPage).offset(page.offset).execute(),
      ]);
      return { total: Number(count.n), items };
    },
  };
}
export type ResultsStore = ReturnType<typeof resultsStore>;
