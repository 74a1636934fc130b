import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { AnalysesTable, AnalysisRow, ComponentRow, Database, FindingRow, FindingsTable, RepoStatusRow } from '../db/schema.js';
import { REPO_COLUMNS, SCAN_COLUMNS, type RepoWithRole } from '../repos/store.js';
import type { RefName } from '../refs/ref-name.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import type { Severity } from './parsers/types.js';
import { SEVERITY_RANK } from './parsers/severity.js';
import { containsIgnoringCase } from '../db/like.js';
import { compiledOnce } from '../db/compiled.js';
import type { Dialect } from '../db/index.js';
import { jsonArrayFrom as postgresJsonArray } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArray } from 'kysely/helpers/sqlite';
import { epssPercentile, epssProbability, inKev } from '../advisories/priorities-store.js';
import { groupVulnerabilities, type VulnerabilityGroup } from '../findings/vulnerabilities.js';
import { knownAliases, vulnerabilityFindings } from '../findings/vulnerability-store.js';

export interface FindingFilters {
  state: 'open' | 'fixed' | 'dismissed' | 'all';
  severity?: Severity;
  tool?: string;
  q?: string;
  /**
   * A pull request against its base branch (null: the base has no results): `new` lists its open
   * findings whose fingerprint is not open in the base's analysis of the same tool, category and
   * format; `fixed` lists the base's open findings absent from the pull request's analysis of the
   * same identity.
   */
  vsBase?: { compare: 'new' | 'fixed'; baseRefId: string | null };
  /** Upload ids: findings first seen in, last fixed by, or last reopened by that upload. */
  introducedIn?: string;
  fixedIn?: string;
  reopenedIn?: string;
  /** true: only findings in the KEV catalogue; false: only those not in it. */
  kev?: boolean;
  sort?: 'severity' | 'epss';
}

export type FindingWithAnalysis = FindingRow & {
  tool: string; category: string; format: string;
  /** Joined from kev_entries and epss_scores when read (advisories/priorities-store). */
  in_kev: boolean | number; epss_probability: number | null; epss_percentile: number | null;
};
/** An analysis as the status lists it: its open counts and its latest upload's status. */
export type AnalysisStatus = Pick<AnalysisRow, 'tool' | 'category' | 'format' | 'last_upload_id' | 'completed_at' | 'dismissed'
  | 'open_critical' | 'open_high' | 'open_medium' | 'open_low' | 'open_info'> & { upload_status: string };
/** A ref's totals as the status shows them. */
export type RefStatus = Omit<RepoStatusRow, 'repository_id'> & { base_ref: string | null };
/** The repository as the status read has it: with the named ref's row (null: it has no results) and that ref's analyses. */
export type StatusRead = RepoWithRole & { ref: RefStatus | null; analyses: AnalysisStatus[] };
export type ComponentWithTool = ComponentRow & { tool: string };

const SEVERITY_COLUMN = {
  critical: 'open_critical', high: 'open_high', medium: 'open_medium', low: 'open_low', info: 'open_info',
} as const;

/** Reads of scan results. Totals come from the aggregates where the filters allow, so a page costs the same at any size. */
export function resultsStore(db: Kysely<Database>, dialect: Dialect) {
  // The status read, in one query: the repository, its status row and the user's role in its org
  // (as the repository read has them), the ref's row and its analyses as one JSON array: a row per
  // analysis repeating the repository cost SQLite more than the two queries it replaced.
  // Parameters: the user id, the ref's kind and name (null: the default branch as stored, else
  // main), the repository id.
  const statusOfRef = compiledOnce(db, db.selectFrom('repos')
    .leftJoin('repo_status', 'repo_status.repository_id', 'repos.id')
    .leftJoin('memberships', (join) => join.onRef('memberships.org_id', '=', 'repos.org_id').on('memberships.user_id', '=', ''))
    .leftJoin('refs', (join) => join.onRef('refs.repository_id', '=', 'repos.id').on('refs.kind', '=', '')
      .on('refs.name', '=', sql<string>`coalesce(${''}, nullif(${sql.ref('repos.default_branch')}, ''), 'main')`))
    .select(REPO_COLUMNS).select(SCAN_COLUMNS).select('memberships.role as member_role')
    .select([
      'refs.id as ref_id', 'refs.base_ref as ref_base_ref', 'refs.state as ref_state', 'refs.last_upload_at as ref_last_upload_at',
      'refs.last_completed_at as ref_last_completed_at', 'refs.open_critical as ref_open_critical', 'refs.open_high as ref_open_high',
      'refs.open_medium as ref_open_medium', 'refs.open_low as ref_open_low', 'refs.open_info as ref_open_info',
      'refs.components as ref_components', 'refs.vulnerabilities as ref_vulnerabilities',
    ])
    .select((eb) => {
      const analyses = eb.selectFrom('analyses').innerJoin('uploads', 'uploads.id', 'analyses.last_upload_id')
        .select([
          'analyses.tool', 'analyses.category', 'analyses.format', 'analyses.last_upload_id', 'analyses.completed_at', 'analyses.open_critical',
          'analyses.open_high', 'analyses.open_medium', 'analyses.open_low', 'analyses.open_info', 'analyses.dismissed', 'uploads.status as upload_status',
        ])
        .whereRef('analyses.ref_id', '=', 'refs.id')
        .orderBy('analyses.tool').orderBy('analyses.category').orderBy('analyses.format');
      return (dialect === 'postgres' ? postgresJsonArray(analyses) : sqliteJsonArray(analyses)).as('analyses');
    })
    .where('repos.id', '=', ''));
  return {
    /** A ref's vulnerabilities (findings naming a package, grouped by vulnerability and package), in every state. */
    async vulnerabilityGroups(refId: string): Promise<VulnerabilityGroup[]> {
      const findings = await vulnerabilityFindings(db, refId, ['open', 'dismissed', 'fixed']);
      return groupVulnerabilities(findings, await knownAliases(db, findings));
    },

    /**
     * What the status read needs, in one query: the repository with the user's role (as
     * RepoStore.byIdFor has them), the named ref's row (ref null: the branch default_branch names as
     * stored, else main) and its analyses. Undefined when the repository does not exist.
     */
    async status(userId: string, repositoryId: string, ref: RefName | null): Promise<StatusRead | undefined> {
      const [row] = await statusOfRef(userId, ref?.kind ?? 'branch', ref?.name ?? null, repositoryId);
      if (!row) return undefined;
      // SQLite answers the array as JSON text; PostgreSQL parses it, with its own spelling of a time.
      const analyses = (typeof row.analyses === 'string' ? JSON.parse(row.analyses) : row.analyses) as AnalysisStatus[];
      if (dialect === 'postgres') for (const analysis of analyses) analysis.completed_at = new Date(analysis.completed_at).toISOString();
      const refRow = row.ref_id === null ? null : {
        base_ref: row.ref_base_ref, state: row.ref_state!, last_upload_at: row.ref_last_upload_at, last_completed_at: row.ref_last_completed_at,
        open_critical: row.ref_open_critical!, open_high: row.ref_open_high!, open_medium: row.ref_open_medium!, open_low: row.ref_open_low!,
        open_info: row.ref_open_info!, components: row.ref_components!, vulnerabilities: row.ref_vulnerabilities,
      };
      // The row is the repository, with the ref's columns beside, which nobody reads as the repository's.
      return Object.assign(row, { ref: refRow, analyses });
    },

    async findings(refId: string, filters: FindingFilters, page: Page): Promise<Paged<FindingWithAnalysis>> {
      const vsBase = filters.vsBase;
      // "Fixed against the base" lists the base's findings, so it reads the base's ref.
      const listed = vsBase?.compare === 'fixed' ? vsBase.baseRefId : refId;
      if (listed === null) return { total: 0, items: [] };
      let query = db.selectFrom('findings').innerJoin('analyses', 'analyses.id', 'findings.analysis_id')
        .where('findings.ref_id', '=', listed);
      if (filters.state !== 'all') query = query.where('findings.state', '=', filters.state);
      if (filters.severity) query = query.where('findings.severity_rank', '=', SEVERITY_RANK[filters.severity]);
      if (filters.tool) query = query.where('analyses.tool', '=', filters.tool);
      if (filters.introducedIn) query = query.where('findings.first_upload_id', '=', filters.introducedIn);
      if (filters.fixedIn) query = query.where('findings.fixed_upload_id', '=', filters.fixedIn);
      if (filters.reopenedIn) query = query.where('findings.reopened_upload_id', '=', filters.reopenedIn);
      if (filters.kev !== undefined) query = query.where(filters.kev ? inKev() : sql<boolean>`not ${inKev()}`);
      if (filters.q) {
        const q = filters.q;
        query = query.where((eb) => eb.or(['findings.rule_id', 'findings.message', 'findings.file_path']
          .map((column) => containsIgnoringCase(column, q))));
      }
      if (vsBase?.compare === 'new' && vsBase.baseRefId !== null) {
        query = query.where((eb) => eb.not(eb.exists(openInSameAnalysisOf(eb, vsBase.baseRefId!))));
      }
      if (vsBase?.compare === 'fixed') {
        query = query
          .where((eb) => eb.exists(eb.selectFrom('analyses as other').select(sql.lit(1).as('one'))
            .where('other.ref_id', '=', refId).whereRef('other.tool', '=', 'analyses.tool')
            .whereRef('other.category', '=', 'analyses.category').whereRef('other.format', '=', 'analyses.format')))
          .where((eb) => eb.not(eb.exists(openInSameAnalysisOf(eb, refId))));
      }
      let ordered = query.selectAll('findings').select(['analyses.tool', 'analyses.category', 'analyses.format']);
      // Unscored findings last on both databases (PostgreSQL puts nulls first when descending).
      if (filters.sort === 'epss') ordered = ordered.orderBy(sql`coalesce(${epssProbability()}, -1)`, 'desc');
      const paged = ordered.orderBy('findings.severity_rank', 'desc').orderBy('findings.id').limit(page.perPage).offset(page.offset);
      // KEV and EPSS for the page's findings only: in the paging select itself, PostgreSQL worked them
      // out for every row the offset skips too (page 10 took 60 ms instead of 3).
      let withPriorities = db.selectFrom(paged.as('page')).selectAll('page')
        .select([inKev('page.rule_id').as('in_kev'), epssProbability('page.rule_id').as('epss_probability'), epssPercentile('page.rule_id').as('epss_percentile')]);
      if (filters.sort === 'epss') withPriorities = withPriorities.orderBy(sql`coalesce(${epssProbability('page.rule_id')}, -1)`, 'desc');
      const items = await withPriorities.orderBy('page.severity_rank', 'desc').orderBy('page.id').execute();
      const total = (vsBase ? null : await this.aggregateTotal(refId, filters))
        ?? Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      return { total, items };
    },

    /** Open findings (by severity and tool) and fixed ones are counted as uploads complete. */
    async aggregateTotal(refId: string, filters: FindingFilters): Promise<number | null> {
      if (filters.q || filters.state === 'all' || filters.state === 'dismissed' || (filters.state === 'fixed' && filters.severity)) return null;
      if (filters.introducedIn || filters.fixedIn || filters.reopenedIn || filters.kev !== undefined) return null;
      let query = db.selectFrom('analyses').where('ref_id', '=', refId);
      if (filters.tool) query = query.where('tool', '=', filters.tool);
      const rows = await query.select(['open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'fixed_total']).execute();
      return rows.reduce((sum, row) => {
        if (filters.state === 'fixed') return sum + row.fixed_total;
        if (filters.severity) return sum + row[SEVERITY_COLUMN[filters.severity]];
        return sum + row.open_critical + row.open_high + row.open_medium + row.open_low + row.open_info;
      }, 0);
    },

    /** The repository as well as the ref, so the planner may still walk components_repo in name order. */
    components(repositoryId: string, refId: string, q: string | undefined, page: Page): Promise<Paged<ComponentWithTool>> {
      let query = db.selectFrom('components').innerJoin('analyses', 'analyses.id', 'components.analysis_id')
        .where('components.repository_id', '=', repositoryId).where('analyses.ref_id', '=', refId);
      if (q) {
        query = query.where((eb) => eb.or(['components.name', 'components.purl']
          .map((column) => containsIgnoringCase(column, q))));
      }
      return paginate(query, page, (q) => q.selectAll('components').select('analyses.tool').orderBy('components.name').orderBy('components.id'));
    },
  };
}
export type ResultsStore = ReturnType<typeof resultsStore>;

/**
 * The same fingerprint open in `refId`'s analysis of the listed finding's tool, category and format
 * (through the analysis's unique identity and findings_identity, one probe each). The gate's
 * fail_on_new for a pull request asks the same question.
 */
export function openInSameAnalysisOf(eb: ExpressionBuilder<Database & { findings: FindingsTable; analyses: AnalysesTable }, 'findings' | 'analyses'>, refId: string) {
  return eb.selectFrom('analyses as other').innerJoin('findings as same', 'same.analysis_id', 'other.id')
    .select(sql.lit(1).as('one'))
    .where('other.ref_id', '=', refId).whereRef('other.tool', '=', 'analyses.tool')
    .whereRef('other.category', '=', 'analyses.category').whereRef('other.format', '=', 'analyses.format')
    .whereRef('same.fingerprint', '=', 'findings.fingerprint').where('same.state', '=', 'open');
}
