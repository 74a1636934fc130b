import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { dialectOf } from '../db/index.js';
import type { Policy } from '../gates/types.js';
import type { DayPoint, FindingHistory, TriageHistory } from './snapshot.js';
import { readableBy } from '../policy-store.js';
import { defaultBranchName } from '../refs/store.js';
import { SEVERITY_RANK } from '../domain/severity.js';

const COUNTS = ['open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'opened', 'fixed', 'dismissed', 'reopened', 'breached', 'kev_open', 'vulnerabilities'] as const;

/**
 * The repositories a read covers, said as SQL rather than as a list of ids: one repository, or an
 * org's, narrowed to those `readerId` may read (policy-store.ts readableBy) and to those `teamId` holds.
 */
export type RepoScope = { repositoryId: string } | { orgId: string; readerId?: string; teamId?: string };

/** A repository of an org with its default branch's ref (undefined before any upload there). */
export interface ScopedRepo {
  id: string;
  refId: string | undefined;
  /** Its own policy, else null (it follows its org's). */
  policy: Policy | null;
  /** How many findings its default branch holds open, and has fixed (its totals), to size reads of its history. */
  open: number;
  fixed: number;
}

export interface SummaryFinding {
  id: string;
  repository_id: string;
  repository_name: string;
  rule_id: string;
  message: string;
  severity: string;
  state: string;
  created_at: string;
  fixed_at: string | null;
  aliases: string | null;
  file_path: string | null;
  package_name: string | null;
}

/** What MTTR and SLA compliance need of a fixed finding: how long it was open; first seen and its names only when a KEV clock applies. */
export interface FixedFinding {
  repository_id: string;
  severity: string;
  /** From first seen to fixed, in milliseconds. */
  open_ms: number;
  created_at?: string;
  rule_id?: string;
  aliases?: string | null;
}

/** Past due now, counted by the database: the total, the repositories and teams with the most, and where the oldest are. */
export interface PastDue {
  total: number;
  repositories: { repository_id: string; name: string; breached: number }[];
  teams: { team_id: string; name: string; breached: number }[];
  oldest: SummaryFinding[];
}

/** Of each severity rank, the time before which an open finding first seen is past due. */
export type Cutoffs = ReadonlyMap<number, string>;

function inScope(scope: RepoScope) {
  return (eb: ExpressionBuilder<Database, 'repos'>) => {
    if ('repositoryId' in scope) return eb('repos.id', '=', scope.repositoryId);
    return eb.and([
      eb('repos.org_id', '=', scope.orgId),
      ...(scope.readerId === undefined ? [] : [readableBy(scope.readerId)(eb)]),
      ...(scope.teamId === undefined ? [] : [eb('repos.id', 'in', eb.selectFrom('team_repositories').select('team_repositories.repository_id').where('team_repositories.team_id', '=', scope.teamId))]),
    ]);
  };
}

/** First seen before its severity's cutoff: the findings_open_age index (ref, severity, first seen) answers it. */
function pastDue(cutoffs: Cutoffs) {
  return (eb: ExpressionBuilder<Database, 'findings'>) => eb.or([...cutoffs].map(([rank, cutoff]) => eb.and([eb('findings.severity_rank', '=', rank), eb('findings.created_at', '<', cutoff)])));
}

const SEVERITY_OF_RANK = Object.fromEntries(Object.entries(SEVERITY_RANK).map(([severity, rank]) => [rank, severity])) as Record<number, string>;

const FINDING_COLUMNS = ['findings.id', 'findings.repository_id', 'repos.name as repository_name', 'findings.rule_id', 'findings.aliases', 'findings.message', 'findings.severity',
  'findings.state', 'findings.created_at', 'findings.fixed_at', 'findings.file_path', 'findings.package_name'] as const;

export function metricsStore(db: Kysely<Database>) {
  /** The findings of the default branches of the repositories in scope, joined by the database itself. */
  const defaultBranchFindings = (scope: RepoScope) => db.selectFrom('repos')
    .innerJoin('refs', (join) => join.onRef('refs.repository_id', '=', 'repos.id').on('refs.kind', '=', 'branch').on('refs.name', '=', defaultBranchName()))
    .innerJoin('findings', 'findings.ref_id', 'refs.id')
    .where(inScope(scope));

  return {
    /** An org's repositories with their default branch's ref and own policy. */
    async repositories(orgId: string): Promise<ScopedRepo[]> {
      const rows = await db.selectFrom('repos')
        .leftJoin('refs', (join) => join.onRef('refs.repository_id', '=', 'repos.id').on('refs.kind', '=', 'branch').on('refs.name', '=', defaultBranchName()))
        .leftJoin('repo_policies', 'repo_policies.repository_id', 'repos.id')
        .select(['repos.id', 'refs.id as ref_id', 'repo_policies.document',
          'refs.open_critical', 'refs.open_high', 'refs.open_medium', 'refs.open_low', 'refs.open_info', 'refs.fixed_total'])
        .where('repos.org_id', '=', orgId).execute();
      return rows.map((r) => ({
        id: r.id, refId: r.ref_id ?? undefined, policy: r.document ? (JSON.parse(r.document) as Policy) : null,
        open: Number(r.open_critical ?? 0) + Number(r.open_high ?? 0) + Number(r.open_medium ?? 0) + Number(r.open_low ?? 0) + Number(r.open_info ?? 0),
        fixed: Number(r.fixed_total ?? 0),
      }));
    },

    async orgIds(): Promise<string[]> {
      return (await db.selectFrom('orgs').select('id').orderBy('id').execute()).map((r) => r.id);
    },

    async orgPolicy(orgId: string): Promise<Policy> {
      const row = await db.selectFrom('org_policies').select('document').where('org_id', '=', orgId).executeTakeFirst();
      return row ? (JSON.parse(row.document) as Policy) : {};
    },

    /** The own policies of the repositories in scope that have one (the others follow their org's). */
    async ownPolicies(scope: RepoScope): Promise<Map<string, Policy>> {
      const rows = await db.selectFrom('repo_policies').innerJoin('repos', 'repos.id', 'repo_policies.repository_id')
        .select(['repo_policies.repository_id', 'repo_policies.document']).where(inScope(scope)).execute();
      return new Map(rows.map((r) => [r.repository_id, JSON.parse(r.document) as Policy]));
    },

    /** Whether `readerId` may read every repository of the org: one statement that stops at the first it may not. */
    async readsWholeOrg(orgId: string, readerId: string): Promise<boolean> {
      const unreadable = await db.selectFrom('repos').select('repos.id').where('repos.org_id', '=', orgId)
        .where((eb) => eb.not(readableBy(readerId)(eb))).limit(1).executeTakeFirst();
      return unreadable === undefined;
    },

    async teamExists(orgId: string, teamId: string): Promise<boolean> {
      return (await db.selectFrom('teams').select('id').where('id', '=', teamId).where('org_id', '=', orgId).executeTakeFirst()) !== undefined;
    },

    /** The org's teams and the repositories each holds. */
    async teamRepositories(orgId: string): Promise<{ team_id: string; name: string; repository_id: string }[]> {
      return db.selectFrom('team_repositories').innerJoin('teams', 'teams.id', 'team_repositories.team_id')
        .select(['teams.id as team_id', 'teams.name', 'team_repositories.repository_id']).where('teams.org_id', '=', orgId).execute();
    },

    /** The last day written per repository of the org. */
    async lastDays(orgId: string): Promise<Map<string, string>> {
      const rows = await db.selectFrom('repo_snapshots').select(['repository_id', (eb) => eb.fn.max('day').as('day')])
        .where('org_id', '=', orgId).groupBy('repository_id').execute();
      return new Map(rows.map((r) => [r.repository_id, r.day as string]));
    },

    /**
     * When Scanyard imported each KEV entry, by CVE: the catalogue is a few thousand entries, so
     * figures over many findings look their names up here instead of asking the database per finding.
     */
    async kevImports(): Promise<Map<string, string>> {
      const rows = await db.selectFrom('kev_entries').select(['cve', 'imported_at']).execute();
      return new Map(rows.map((r) => [r.cve.toUpperCase(), r.imported_at ?? '']));
    },

    /**
     * What some default branches' findings and triage events say of the days from `since` (null: from
     * the first) up to `before`, per repository (a few hundred at once). A day's figures never count
     * what came after it, so today's findings are left out (a repository first scanned today reads
     * nothing); nor can a finding fixed before `since` count on those days unless a triage event of
     * it falls within them, so the daily round reads open findings and the few fixed lately, not
     * every finding the branch ever fixed.
     */
    async histories(repos: readonly { id: string; refId: string }[], since: string | null, before: string): Promise<Map<string, { findings: FindingHistory[]; events: TriageHistory[] }>> {
      const out = new Map(repos.map((r) => [r.id, { findings: [] as FindingHistory[], events: [] as TriageHistory[] }]));
      if (repos.length === 0) return out;
      const repositoryIds = repos.map((r) => r.id);
      // Rows kept as the driver made them (kev_added_at filled in by the caller): a daily round reads
      // every open finding of the portfolio, and each copy of ten million rows was garbage to collect.
      const findings = await db.selectFrom('findings')
        .select(['repository_id', 'fingerprint', 'severity', 'rule_id', 'aliases', 'purl', 'state', 'created_at', 'fixed_at', 'reopened_at',
          sql<string | null>`null`.as('kev_added_at')])
        .where('ref_id', 'in', repos.map((r) => r.refId)).where('created_at', '<', before)
        .$if(since !== null, (q) => q.where((eb) => eb.or([
          eb('state', '!=', 'fixed'),
          eb('fixed_at', '>=', since!),
          eb.exists(eb.selectFrom('finding_events').select(sql.lit(1).as('one'))
            .whereRef('finding_events.repository_id', '=', 'findings.repository_id').whereRef('finding_events.fingerprint', '=', 'findings.fingerprint')
            .where('finding_events.created_at', '>=', since!).where('finding_events.created_at', '<', before)),
        ])))
        .execute();
      for (const f of findings) out.get(f.repository_id)?.findings.push(f);
      const events = await db.selectFrom('finding_events').select(['repository_id', 'fingerprint', 'event', 'created_at'])
        .where('repository_id', 'in', repositoryIds).where('created_at', '<', before).execute();
      for (const { repository_id: id, ...e } of events) out.get(id)?.events.push(e);
      return out;
    },

    /** The org's sums for these days, summed again from its repositories' rows. */
    async rollUp(orgId: string, from: string, to: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('org_snapshots').where('org_id', '=', orgId).where('day', '>=', from).where('day', '<=', to).execute();
        await trx.insertInto('org_snapshots').columns(['org_id', 'day', ...COUNTS])
          .expression((eb) => eb.selectFrom('repo_snapshots').select((e) => ['org_id', 'day', ...COUNTS.map((c) => e.fn.sum<number>(c).as(c))])
            .where('org_id', '=', orgId).where('day', '>=', from).where('day', '<=', to).groupBy(['org_id', 'day']))
          .execute();
      });
    },

    /** Writes days not yet written; a day already there stays as it was (written live, or by another instance). */
    async writeDays(orgId: string, repos: readonly { repositoryId: string; points: readonly DayPoint[] }[]): Promise<void> {
      const values = repos.flatMap(({ repositoryId, points }) => points.map((p) => ({
        repository_id: repositoryId, org_id: orgId, day: p.day,
        open_critical: p.open.critical, open_high: p.open.high, open_medium: p.open.medium, open_low: p.open.low, open_info: p.open.info,
        opened: p.opened, fixed: p.fixed, dismissed: p.dismissed, reopened: p.reopened, breached: p.breached, kev_open: p.kev_open, vulnerabilities: p.vulnerabilities,
      })));
      // 15 columns a row: 500 rows stay well inside either database's limit on bound parameters.
      for (let i = 0; i < values.length; i += 500) {
        await db.insertInto('repo_snapshots').values(values.slice(i, i + 500)).onConflict((oc) => oc.columns(['repository_id', 'day']).doNothing()).execute();
      }
    },

    /**
     * Daily sums: a whole org's from its rolled-up rows, else summed from the snapshots of the
     * repositories in scope, which the database picks itself.
     */
    async daily(source: { wholeOrg: string } | RepoScope, from: string, to: string): Promise<DayPoint[]> {
      const rows = 'wholeOrg' in source
        ? await db.selectFrom('org_snapshots').select(['day', ...COUNTS]).where('org_id', '=', source.wholeOrg).where('day', '>=', from).where('day', '<=', to).execute()
        : await db.selectFrom('repo_snapshots').select((eb) => ['day', ...COUNTS.map((c) => eb.fn.sum<number | string>(c).as(c))])
          // The org's rows by their (org_id, day) index, when the scope is within one org.
          .$if('orgId' in source, (q) => q.where('org_id', '=', (source as { orgId: string }).orgId))
          .where('repository_id', 'in', db.selectFrom('repos').select('repos.id').where(inScope(source)))
          .where('day', '>=', from).where('day', '<=', to).groupBy('day').execute();
      const byDay = new Map<string, DayPoint>();
      for (const row of rows) {
        byDay.set(row.day, {
          day: row.day, open: { critical: Number(row.open_critical), high: Number(row.open_high), medium: Number(row.open_medium), low: Number(row.open_low), info: Number(row.open_info) },
          opened: Number(row.opened), fixed: Number(row.fixed), dismissed: Number(row.dismissed), reopened: Number(row.reopened),
          breached: Number(row.breached), kev_open: Number(row.kev_open), vulnerabilities: Number(row.vulnerabilities),
        });
      }
      return [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
    },

    /**
     * Default-branch findings fixed at or after `since`, as how long each was open (tens of
     * thousands at ten thousand repositories: numbers, not rows); first seen and names only when a
     * KEV clock applies.
     */
    async fixedSince(scope: RepoScope, since: string, withKev: boolean): Promise<FixedFinding[]> {
      const openMs = dialectOf(db) === 'postgres'
        ? sql<number>`extract(epoch from ${sql.ref('findings.fixed_at')} - ${sql.ref('findings.created_at')}) * 1000`
        : sql<number>`(julianday(${sql.ref('findings.fixed_at')}) - julianday(${sql.ref('findings.created_at')})) * 86400000`;
      // The repository from the join and the severity by its rank: findings_fixed_at holds the rest.
      const rows = await defaultBranchFindings(scope)
        .select(['repos.id as repository_id', 'findings.severity_rank', openMs.as('open_ms')])
        .$if(withKev, (q) => q.select(['findings.created_at', 'findings.rule_id', 'findings.aliases']))
        .where('findings.state', '=', 'fixed').where('findings.fixed_at', '>=', since).execute();
      // Both read back as floating point (julianday in days); the times themselves are whole milliseconds.
      return rows.map(({ severity_rank: rank, ...r }) => ({ ...r, severity: SEVERITY_OF_RANK[rank] ?? 'info', open_ms: Math.round(Number(r.open_ms)) }));
    },

    /**
     * Past-due open findings when the cutoffs are exact (one SLA for every repository in scope and
     * no KEV days): first seen before now minus the severity's days, which the database counts per
     * repository over the findings_open_age index without reading a finding, and sums per team in
     * the same statement. The count also gives each repository's earliest of each severity: the
     * `limit` oldest of a severity are among the findings of the `limit` repositories whose earliest
     * is earliest (each has one at least as old as any elsewhere), so only those few are read for them.
     */
    async pastDue(scope: RepoScope, orgId: string, cutoffs: Cutoffs, limit: number, top: number): Promise<PastDue> {
      if (cutoffs.size === 0) return { total: 0, repositories: [], teams: [], oldest: [] };
      const ranks = [...cutoffs.keys()];
      const perRepo = defaultBranchFindings(scope).where('findings.state', '=', 'open').where(pastDue(cutoffs))
        .select(['repos.id as repository_id', 'repos.name', (eb) => eb.fn.countAll().as('breached'),
          ...ranks.map((rank) => sql`min(case when ${sql.ref('findings.severity_rank')} = ${rank} then ${sql.ref('findings.created_at')} end)`.as(`earliest_${rank}`))])
        .groupBy(['repos.id', 'repos.name']);
      const rows = (await sql<{ kind: string; id: string | null; name: string | null; n: number | string | null }>`with per_repo as ${perRepo}
        select 'total' as kind, null as id, null as name, sum(breached) as n from per_repo
        union all select 'repository', repository_id, name, breached from
          (select repository_id, name, breached from per_repo order by breached desc, name, repository_id limit ${top}) most
        union all select 'team', teams.id, teams.name, sum(per_repo.breached) from per_repo
          inner join team_repositories on team_repositories.repository_id = per_repo.repository_id
          inner join teams on teams.id = team_repositories.team_id and teams.org_id = ${orgId} group by teams.id, teams.name
        ${sql.join(ranks.map((rank) => sql`union all select ${sql.lit(`earliest_${rank}`)}, repository_id, null, null from
          (select repository_id from per_repo where ${sql.ref(`earliest_${rank}`)} is not null order by ${sql.ref(`earliest_${rank}`)}, repository_id limit ${limit}) ${sql.ref(`first_${rank}`)}`), sql` `)}`
        .execute(db)).rows;
      const oldest = await Promise.all([...cutoffs].map(([rank, cutoff]) => {
        const first = rows.filter((r) => r.kind === `earliest_${rank}`).map((r) => r.id!);
        return first.length === 0 ? [] : defaultBranchFindings(scope).select(FINDING_COLUMNS).where('repos.id', 'in', first)
          .where('findings.state', '=', 'open').where('findings.severity_rank', '=', rank).where('findings.created_at', '<', cutoff)
          .orderBy('findings.created_at').orderBy('findings.id').limit(limit).execute();
      }));
      const of = (kind: string) => rows.filter((r) => r.kind === kind).map((r) => ({ id: r.id!, name: r.name!, breached: Number(r.n) }))
        .sort((a, b) => b.breached - a.breached || a.name.localeCompare(b.name));
      return {
        total: Number(rows.find((r) => r.kind === 'total')?.n ?? 0),
        repositories: of('repository').map(({ id, ...r }) => ({ repository_id: id, ...r })),
        teams: of('team').map(({ id, ...r }) => ({ team_id: id, ...r })),
        oldest: oldest.flat(),
      };
    },

    /**
     * Open default-branch findings that may be past due, when the SLA differs between repositories
     * or counts KEV days: of each severity, first seen before its cutoff (now minus the shortest
     * window that can apply to it); the service judges each. Severities absent from `cutoffs` have no SLA.
     */
    async mayBePastDue(scope: RepoScope, cutoffs: Cutoffs): Promise<SummaryFinding[]> {
      if (cutoffs.size === 0) return [];
      return defaultBranchFindings(scope).select(FINDING_COLUMNS).where('findings.state', '=', 'open').where(pastDue(cutoffs)).execute();
    },
  };
}
