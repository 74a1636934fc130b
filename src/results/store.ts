import { sql, type ExpressionBuilder, type Kysely, type RawBuilder } from 'kysely';
import type { AnalysesTable, ComponentRow, Database, FindingRow, FindingsTable, RepoStatusRow } from '../db/schema.js';
import { SCAN_COLUMNS, type RepoWithRole } from '../repos/store.js';
import { teamRoleOn } from '../policy-store.js';
import type { RefName } from '../domain/ref-name.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import type { Severity } from '../domain/scan.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import { containsIgnoringCase } from '../db/like.js';
import { compiledOnce } from '../db/compiled.js';
import type { Dialect } from '../db/index.js';
import { jsonBuildObject as postgresJsonObject } from 'kysely/helpers/postgres';
import { jsonBuildObject as sqliteJsonObject } from 'kysely/helpers/sqlite';
import { epssPercentile, epssProbability, inKev, kevAddedAt } from '../advisories/priorities-store.js';
import { SLA_SEVERITIES, slaOf, type Sla, type SlaState } from '../domain/sla.js';
import { groupVulnerabilities, type VulnerabilityGroup } from './vulnerabilities.js';
import { knownAliases, vulnerabilityFindings } from './vulnerability-store.js';
import type { AnalysisStatus } from './status-store.js';
import type { DiffComponent, DiffFinding } from './components-diff.js';

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
  sort?: 'severity' | 'epss' | 'due_at';
  /** Open findings in this SLA state (none has one when the SLA is off). */
  sla?: SlaState;
}

/** The SLA and the time the list judges by (the service's clock). */
export interface SlaContext {
  sla: Sla;
  at: number;
}

const DAY_MS = 86_400_000;

export type FindingWithAnalysis = FindingRow & {
  tool: string; category: string; format: string;
  /** Joined from kev_entries and epss_scores when read (advisories/priorities-store). */
  in_kev: boolean | number; epss_probability: number | null; epss_percentile: number | null;
  /** When Scanyard imported the KEV entry of one of its names (the SLA's KEV clock). */
  kev_added_at?: string | null;
  /** Worked out from the SLA by the service (domain/sla.ts); null when dismissed or no SLA applies. */
  due_at?: string | null; sla?: SlaState | null;
  /** For a finding naming a package an SBOM of its ref lists: its place in that SBOM's graph (results/graph.ts). */
  place?: PackagePlace;
  /** The fingerprint's dismissal, and the login of whoever made it. */
  dismissed_reason: string | null; dismissed_comment: string | null; dismissed_at: string | null; dismissed_until: string | null; dismissed_by: string | null;
};
/** A ref's totals as the status shows them. */
export type RefStatus = Omit<RepoStatusRow, 'repository_id'> & { base_ref: string | null };
/**
 * The repository as the status read has it (what the decision and the status row need), the named
 * ref's analyses, and its row (null: it has no results), decoded only when asked for.
 */
export type StatusRead = Pick<RepoWithRole, 'id' | 'org_id' | 'default_branch' | 'member_role' | 'base_role' | 'team_role' | keyof Omit<RepoStatusRow, 'repository_id'>> & {
  analyses: AnalysisStatus[];
  refRow(): RefStatus | null;
};

export type ComponentWithTool = ComponentRow & { tool: string };
export type GraphRow = Pick<ComponentRow, 'id' | 'ref' | 'name' | 'version' | 'purl' | 'direct' | 'depends_on'>;

const SEVERITY_COLUMN = {
  critical: 'open_critical', high: 'open_high', medium: 'open_medium', low: 'open_low', info: 'open_info',
} as const;

/** SQLite answers JSON as text; PostgreSQL parses it, and spells a time its own way inside it. */
const fromJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
const isoTime = (time: string) => new Date(time).toISOString();

/** Reads of scan results. Totals come from the aggregates where the filters allow, so a page costs the same at any size. */
export function resultsStore(db: Kysely<Database>, dialect: Dialect) {
  // The status read, in one query: the repository's id, org and default branch, its status row and
  // the user's role in its org, then the named ref's row as JSON and its analyses as the ref keeps
  // them (JSON written with its totals, instead of joined, sorted and built here on every request:
  // without them, PostgreSQL's status read ran 19-33% faster). Few columns on purpose: each is a
  // value to decode on every request (on PostgreSQL a timestamp is a Date made and formatted).
  // Parameters: the user id (the team role's subquery), the user id again (the membership join), the
  // ref's kind and name (null: the default branch as stored, else main), the repository id.
  const statusOfRef = compiledOnce(db, db.selectFrom('repos')
    .innerJoin('orgs', 'orgs.id', 'repos.org_id')
    .leftJoin('repo_status', 'repo_status.repository_id', 'repos.id')
    .leftJoin('memberships', (join) => join.onRef('memberships.org_id', '=', 'repos.org_id').on('memberships.user_id', '=', ''))
    .leftJoin('refs', (join) => join.onRef('refs.repository_id', '=', 'repos.id').on('refs.kind', '=', '')
      .on('refs.name', '=', sql<string>`coalesce(${''}, nullif(${sql.ref('repos.default_branch')}, ''), 'main')`))
    .select(['repos.id', 'repos.org_id', 'repos.default_branch', ...SCAN_COLUMNS, 'memberships.role as member_role', 'orgs.base_role'])
    .select((eb) => teamRoleOn(eb, ''))
    .select((eb) => eb.case().when('refs.id', 'is', null).then(null).else((dialect === 'postgres' ? postgresJsonObject : sqliteJsonObject)({
      base_ref: eb.ref('refs.base_ref'), state: eb.ref('refs.state'), last_upload_at: eb.ref('refs.last_upload_at'),
      last_completed_at: eb.ref('refs.last_completed_at'), open_critical: eb.ref('refs.open_critical'), open_high: eb.ref('refs.open_high'),
      open_medium: eb.ref('refs.open_medium'), open_low: eb.ref('refs.open_low'), open_info: eb.ref('refs.open_info'),
      components: eb.ref('refs.components'), vulnerabilities: eb.ref('refs.vulnerabilities'),
    })).end().as('ref'))
    .select('refs.analyses')
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
      const [row] = await statusOfRef(userId, userId, ref?.kind ?? 'branch', ref?.name ?? null, repositoryId);
      if (!row) return undefined;
      const analyses = row.analyses === null ? [] : JSON.parse(row.analyses) as AnalysisStatus[];
      const refJson = row.ref;
      return {
        ...row, analyses,
        refRow() {
          if (refJson === null) return null;
          const refRow = fromJson<RefStatus>(refJson);
          if (dialect !== 'postgres') return refRow;
          return { ...refRow, last_upload_at: refRow.last_upload_at && isoTime(refRow.last_upload_at), last_completed_at: refRow.last_completed_at && isoTime(refRow.last_completed_at) };
        },
      };
    },

    /** The SLA that applies to the repository: its own policy's max_age_days, else its org's (the gate reads the same). */
    async slaOf(repositoryId: string): Promise<Sla> {
      const row = await db.selectFrom('repos')
        .leftJoin('repo_policies', 'repo_policies.repository_id', 'repos.id')
        .leftJoin('org_policies', 'org_policies.org_id', 'repos.org_id')
        .select(['repo_policies.document as own', 'org_policies.document as inherited'])
        .where('repos.id', '=', repositoryId).executeTakeFirst();
      const document = row?.own ?? row?.inherited;
      return slaOf(document ? (JSON.parse(document) as Parameters<typeof slaOf>[0]) : {});
    },

    async findings(refId: string, filters: FindingFilters, page: Page, slaContext?: SlaContext): Promise<Paged<FindingWithAnalysis>> {
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
      if (filters.sla) query = query.where('findings.state', '=', 'open').where(slaPredicate(filters.sla, slaContext));
      if (filters.q) {
        const q = filters.q;
        query = query.where((eb) => eb.or(['findings.rule_id', 'findings.message', 'findings.file_path']
          .map((column) => containsIgnoringCase(dialect, column, q))));
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
      // Soonest due first, findings without a due date last (the same order on both databases).
      const due = filters.sort === 'due_at' && slaContext ? dueAt(dialect, slaContext.sla) : null;
      if (due) ordered = ordered.select(due.as('due_sort')).orderBy(sql`case when ${due} is null then 1 else 0 end`).orderBy(due);
      const paged = ordered.orderBy('findings.severity_rank', 'desc').orderBy('findings.id').limit(page.perPage).offset(page.offset);
      // KEV, EPSS and dismissals for the page's findings only: in the paging select itself, PostgreSQL
      // worked them out for every row the offset skips too (page 10 took 60 ms instead of 3).
      let withPriorities = db.selectFrom(paged.as('page'))
        .leftJoin('dismissals', (join) => join.onRef('dismissals.repository_id', '=', 'page.repository_id').onRef('dismissals.fingerprint', '=', 'page.fingerprint'))
        .leftJoin('users', 'users.id', 'dismissals.dismissed_by')
        .selectAll('page')
        .select([inKev('page.rule_id').as('in_kev'), epssProbability('page.rule_id').as('epss_probability'), epssPercentile('page.rule_id').as('epss_percentile'), kevAddedAt('page.rule_id').as('kev_added_at')])
        .select(['dismissals.reason as dismissed_reason', 'dismissals.comment as dismissed_comment', 'dismissals.dismissed_at',
          'dismissals.dismissed_until', 'users.login as dismissed_by']);
      if (filters.sort === 'epss') withPriorities = withPriorities.orderBy(sql`coalesce(${epssProbability('page.rule_id')}, -1)`, 'desc');
      if (due) withPriorities = withPriorities.orderBy(sql`case when ${sql.ref('page.due_sort')} is null then 1 else 0 end`).orderBy(sql.ref('page.due_sort'));
      const items = await withPriorities.orderBy('page.severity_rank', 'desc').orderBy('page.id').execute();
      const total = (vsBase ? null : await this.aggregateTotal(refId, filters))
        ?? Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      return { total, items };
    },

    /** Open findings (by severity and tool) and fixed ones are counted as uploads complete. */
    async aggregateTotal(refId: string, filters: FindingFilters): Promise<number | null> {
      if (filters.q || filters.state === 'all' || filters.state === 'dismissed' || (filters.state === 'fixed' && filters.severity)) return null;
      if (filters.introducedIn || filters.fixedIn || filters.reopenedIn || filters.kev !== undefined || filters.sla) return null;
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
          .map((column) => containsIgnoringCase(dialect, column, q))));
      }
      return paginate(query, page, (q) => q.selectAll('components').select('analyses.tool').orderBy('components.name').orderBy('components.id'));
    },

    /** One component of the repository, undefined when it has none of that id. */
    component(repositoryId: string, componentId: string): Promise<ComponentWithTool | undefined> {
      return db.selectFrom('components').innerJoin('analyses', 'analyses.id', 'components.analysis_id')
        .selectAll('components').select('analyses.tool')
        .where('components.repository_id', '=', repositoryId).where('components.id', '=', componentId).executeTakeFirst();
    },

    /** An analysis of the repository by id, for the diff to compare. */
    analysis(repositoryId: string, analysisId: string): Promise<{ id: string; ref_id: string } | undefined> {
      return db.selectFrom('analyses').select(['id', 'ref_id']).where('repository_id', '=', repositoryId).where('id', '=', analysisId).executeTakeFirst();
    },

    /** The components a diff compares, and the open findings naming their packages: a ref's, or one of its analyses'. */
    async diffSide(of: { refId: string } | { refId: string; analysisId: string }): Promise<{ components: DiffComponent[]; findings: DiffFinding[] }> {
      if ('analysisId' in of) return diffSideOf(db, of.refId, [of.analysisId]);
      return { components: await diffComponentRows(db, of), findings: await diffFindingRows(db, of.refId) };
    },

    graph: (analysisId: string) => graphRows(db, analysisId),
    packageComponents: (refId: string, purls: readonly string[]) => packageComponents(db, refId, purls),
  };
}
export type ResultsStore = ReturnType<typeof resultsStore>;

/** Where a package a finding names sits in its ref's SBOM: a direct dependency or not, and the first path that pulls it in. */
export interface PackagePlace {
  direct: boolean;
  path: GraphRow[] | null;
}

/** The components a diff compares: a ref's (every SBOM of it) or these analyses'. */
export function diffComponentRows(db: Kysely<Database>, of: { refId: string } | { analysisIds: string[] }): Promise<DiffComponent[]> {
  return db.selectFrom('components').innerJoin('analyses', 'analyses.id', 'components.analysis_id')
    .select(['components.name', 'components.version', 'components.purl', 'components.licenses'])
    .$if('refId' in of, (q) => q.where('analyses.ref_id', '=', (of as { refId: string }).refId))
    .$if('analysisIds' in of, (q) => q.where('components.analysis_id', 'in', (of as { analysisIds: string[] }).analysisIds))
    .execute();
}

/** A ref's open findings that name a package, as a diff reads them. */
export function diffFindingRows(db: Kysely<Database>, refId: string): Promise<DiffFinding[]> {
  return db.selectFrom('findings').select(['rule_id', 'aliases', 'purl', 'severity'])
    .where('ref_id', '=', refId).where('purl', 'is not', null).where('state', '=', 'open').execute() as Promise<DiffFinding[]>;
}

/**
 * One side of a diff made of some of a ref's SBOM analyses: their components, and the ref's open
 * findings naming one of their packages.
 */
export async function diffSideOf(db: Kysely<Database>, refId: string, analysisIds: string[]): Promise<{ components: DiffComponent[]; findings: DiffFinding[] }> {
  const components = await diffComponentRows(db, { analysisIds });
  const purls = new Set(components.map((c) => c.purl));
  return { components, findings: (await diffFindingRows(db, refId)).filter((f) => purls.has(f.purl)) };
}

/** A component naming a package, with the analysis whose graph it is in. */
export type PackageComponent = GraphRow & { analysis_id: string; purl: string };

/** A ref's components with these purls (the packages findings name), in id order. */
export function packageComponents(db: Kysely<Database>, refId: string, purls: readonly string[]): Promise<PackageComponent[]> {
  if (purls.length === 0) return Promise.resolve([]);
  return db.selectFrom('components').innerJoin('analyses', 'analyses.id', 'components.analysis_id')
    .select(['components.id', 'components.ref', 'components.name', 'components.version', 'components.purl', 'components.direct', 'components.depends_on', 'components.analysis_id'])
    .where('analyses.ref_id', '=', refId).where('components.purl', 'in', [...purls]).orderBy('components.id')
    .execute() as Promise<PackageComponent[]>;
}

/** Every component of one SBOM's analysis as its graph needs them (paths, plans and findings read it). */
export function graphRows(db: Kysely<Database>, analysisId: string): Promise<GraphRow[]> {
  return db.selectFrom('components').select(['id', 'ref', 'name', 'version', 'purl', 'direct', 'depends_on'])
    .where('analysis_id', '=', analysisId).orderBy('id').execute();
}

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

/**
 * Findings in an SLA state, as SQL over first seen and the KEV import time (domain/sla.ts slaState):
 * breached when a window's start is before `at - days`; due soon or breached when at or before
 * `at - 0.8 days` (the last fifth). Per severity this is `severity_rank = r and created_at < t`, which
 * the findings' ref/state/severity index serves; nothing stored needs recomputing when the SLA or
 * the KEV catalogue changes. No SLA: no finding is in any state.
 */
function slaPredicate(state: SlaState, context: SlaContext | undefined) {
  return (eb: ExpressionBuilder<Database, 'findings'>) => {
    if (!context) return eb.val(false);
    const { sla, at } = context;
    const before = (days: number, part: number) => new Date(at - days * part * DAY_MS).toISOString();
    // Never null (a finding the KEV catalogue does not list is false, not unknown), so NOT reads as meant.
    const kevStart = (op: '<' | '<=', cutoff: string) => eb.and([eb('findings.created_at', op, cutoff), eb(kevAddedAt(), 'is not', null), eb(kevAddedAt(), op, cutoff)]);
    /** Some window has reached `part` of its length (1: past due, strictly; 0.8: its last fifth); 0: has a window at all. */
    const reached = (part: number, strict: boolean) => {
      const op = strict ? '<' : '<=';
      const branches = SLA_SEVERITIES.filter((s) => sla[s] !== null).map((s) => eb.and([
        eb('findings.severity_rank', '=', SEVERITY_RANK[s]),
        ...(part === 0 ? [] : [eb('findings.created_at', op, before(sla[s]!, part))]),
      ]));
      if (sla.kev_days !== null) {
        if (part === 0) branches.push(eb(inKev(), '=', sql<boolean>`true`));
        else {
          const cutoff = before(sla.kev_days, part);
          branches.push(kevStart(op, cutoff));
        }
      }
      return branches.length ? eb.or(branches) : eb.val(false);
    };
    if (state === 'breached') return reached(1, true);
    if (state === 'due_soon') return eb.and([reached(0.8, false), eb.not(reached(1, true))]);
    return eb.and([reached(0, false), eb.not(reached(0.8, false))]);
  };
}

/** A finding's due_at as SQL (the earlier of its windows' ends; null without one), for sorting. */
function dueAt(dialect: Dialect, sla: Sla) {
  const plus = (at: RawBuilder<unknown>, days: number) => dialect === 'postgres'
    ? sql`(${at} + ${days} * interval '1 day')`
    : sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${at}, ${`+${days} days`})`;
  const created = sql.ref('findings.created_at');
  const severities = SLA_SEVERITIES.filter((s) => sla[s] !== null);
  const bySeverity = severities.length === 0 ? sql`null`
    : sql`case ${sql.join(severities.map((s) => sql`when findings.severity_rank = ${SEVERITY_RANK[s]} then ${plus(sql`${created}`, sla[s]!)}`), sql` `)} else null end`;
  const kev = kevAddedAt();
  const byKev = sla.kev_days === null ? sql`null`
    : sql`case when ${kev} is null then null when ${kev} > ${created} then ${plus(sql`${kev}`, sla.kev_days)} else ${plus(sql`${created}`, sla.kev_days)} end`;
  return sql<string | null>`case when ${bySeverity} is null then ${byKev} when ${byKev} is null then ${bySeverity} when ${bySeverity} < ${byKev} then ${bySeverity} else ${byKev} end`;
}
