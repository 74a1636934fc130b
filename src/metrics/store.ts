import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { defaultBranch } from '../domain/ref-name.js';
import type { Policy } from '../gates/types.js';
import type { DayPoint, FindingHistory, TriageHistory } from './snapshot.js';
import { readableBy } from '../policy-store.js';

const COUNTS = ['open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'opened', 'fixed', 'dismissed', 'reopened', 'breached', 'kev_open', 'vulnerabilities'] as const;

/** Ids per `IN (...)` list: well inside SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 5000;

/** A repository whose figures are read, with its default branch's ref (undefined before any upload there). */
export interface ScopedRepo {
  id: string;
  org_id: string;
  name: string;
  refId: string | undefined;
  /** Its own policy, else null (it follows its org's). */
  policy: Policy | null;
}

export interface SummaryFinding {
  id: string;
  repository_id: string;
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

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

export function metricsStore(db: Kysely<Database>) {
  /** Repositories (all of an org, or the ids given) with their default branch's ref and own policy. */
  async function scoped(where: { orgId: string } | { repositoryIds: string[] }): Promise<ScopedRepo[]> {
    const out: ScopedRepo[] = [];
    const groups = 'orgId' in where ? [null] : chunks(where.repositoryIds);
    for (const ids of groups) {
      let query = db.selectFrom('repos').leftJoin('repo_policies', 'repo_policies.repository_id', 'repos.id')
        .select(['repos.id', 'repos.org_id', 'repos.name', 'repos.default_branch', 'repo_policies.document']);
      query = ids === null ? query.where('repos.org_id', '=', (where as { orgId: string }).orgId) : query.where('repos.id', 'in', ids);
      const repos = await query.execute();
      if (repos.length === 0) continue;
      const refs = new Map<string, string>();
      for (const part of chunks(repos.map((r) => r.id))) {
        for (const ref of await db.selectFrom('refs').select(['id', 'repository_id', 'name']).where('repository_id', 'in', part).where('kind', '=', 'branch').execute()) {
          refs.set(`${ref.repository_id}\n${ref.name}`, ref.id);
        }
      }
      for (const repo of repos) {
        out.push({
          id: repo.id, org_id: repo.org_id, name: repo.name, refId: refs.get(`${repo.id}\n${defaultBranch(repo.default_branch).name}`),
          policy: repo.document ? (JSON.parse(repo.document) as Policy) : null,
        });
      }
    }
    return out;
  }

  return {
    scoped,

    async orgIds(): Promise<string[]> {
      return (await db.selectFrom('orgs').select('id').orderBy('id').execute()).map((r) => r.id);
    },

    async orgPolicy(orgId: string): Promise<Policy> {
      const row = await db.selectFrom('org_policies').select('document').where('org_id', '=', orgId).executeTakeFirst();
      return row ? (JSON.parse(row.document) as Policy) : {};
    },

    /** The repositories a team holds, within its org. */
    /** The org's repositories `readerId` may read (policy-store.ts readableBy), and how many the org has. */
    async readableRepositoryIds(orgId: string, readerId: string): Promise<{ readable: string[]; total: number }> {
      const all = await db.selectFrom('repos').select('id').where('org_id', '=', orgId).execute();
      const readable = await db.selectFrom('repos').select('id').where('org_id', '=', orgId).where(readableBy(readerId)).execute();
      return { readable: readable.map((r) => r.id), total: all.length };
    },

    async teamRepositoryIds(orgId: string, teamId: string): Promise<string[] | undefined> {
      const team = await db.selectFrom('teams').select('id').where('id', '=', teamId).where('org_id', '=', orgId).executeTakeFirst();
      if (!team) return undefined;
      return (await db.selectFrom('team_repositories').select('repository_id').where('team_id', '=', teamId).execute()).map((r) => r.repository_id);
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

    /** Everything some default branches' findings and triage events say of their past, per repository. */
    async histories(repos: readonly { id: string; refId: string }[]): Promise<Map<string, { findings: Omit<FindingHistory, 'kev_added_at'>[]; events: TriageHistory[] }>> {
      const out = new Map(repos.map((r) => [r.id, { findings: [] as Omit<FindingHistory, 'kev_added_at'>[], events: [] as TriageHistory[] }]));
      for (const part of chunks(repos)) {
        const findings = await db.selectFrom('findings')
          .select(['repository_id', 'fingerprint', 'severity', 'rule_id', 'aliases', 'purl', 'state', 'created_at', 'fixed_at', 'reopened_at'])
          .where('ref_id', 'in', part.map((r) => r.refId)).execute();
        for (const { repository_id: id, ...f } of findings) out.get(id)?.findings.push(f);
        const events = await db.selectFrom('finding_events').select(['repository_id', 'fingerprint', 'event', 'created_at'])
          .where('repository_id', 'in', part.map((r) => r.id)).execute();
        for (const { repository_id: id, ...e } of events) out.get(id)?.events.push(e);
      }
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
     * Daily sums over the repositories in scope: a whole org's from its rolled-up rows, else summed
     * from the repositories' (repository_id, day) keys.
     */
    async daily(scope: { orgId: string } | { repositoryIds: string[] }, from: string, to: string): Promise<DayPoint[]> {
      const base = () => db.selectFrom('repo_snapshots').select((eb) => ['day', ...COUNTS.map((c) => eb.fn.sum<number | string>(c).as(c))])
        .where('day', '>=', from).where('day', '<=', to).groupBy('day');
      const rows = 'orgId' in scope
        ? await db.selectFrom('org_snapshots').select(['day', ...COUNTS]).where('org_id', '=', scope.orgId).where('day', '>=', from).where('day', '<=', to).execute()
        : (await Promise.all(chunks(scope.repositoryIds).map((ids) => base().where('repository_id', 'in', ids).execute()))).flat();
      const byDay = new Map<string, DayPoint>();
      for (const row of rows) {
        const point = byDay.get(row.day) ?? {
          day: row.day, open: { critical: 0, high: 0, medium: 0, low: 0, info: 0 }, opened: 0, fixed: 0, dismissed: 0, reopened: 0, breached: 0, kev_open: 0, vulnerabilities: 0,
        };
        point.open.critical += Number(row.open_critical); point.open.high += Number(row.open_high); point.open.medium += Number(row.open_medium);
        point.open.low += Number(row.open_low); point.open.info += Number(row.open_info);
        point.opened += Number(row.opened); point.fixed += Number(row.fixed); point.dismissed += Number(row.dismissed); point.reopened += Number(row.reopened);
        point.breached += Number(row.breached); point.kev_open += Number(row.kev_open); point.vulnerabilities += Number(row.vulnerabilities);
        byDay.set(row.day, point);
      }
      return [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
    },

    /**
     * Past-due open findings counted per repository, and the `limit` first seen earliest of each
     * severity, when the cutoffs are exact (one SLA for every repository and no KEV days): past due is
     * then first seen before now minus the severity's days, which the database counts itself.
     */
    async breached(refIds: readonly string[], cutoffs: ReadonlyMap<number, string>, limit: number): Promise<{ perRepo: Map<string, number>; oldest: SummaryFinding[] }> {
      const perRepo = new Map<string, number>();
      const oldest: SummaryFinding[] = [];
      if (cutoffs.size === 0) return { perRepo, oldest };
      const columns = ['id', 'repository_id', 'rule_id', 'aliases', 'message', 'severity', 'state', 'created_at', 'fixed_at', 'file_path', 'package_name'] as const;
      for (const ids of chunks(refIds)) {
        const counts = await db.selectFrom('findings').select(['repository_id', (eb) => eb.fn.countAll<number | string>().as('n')])
          .where('ref_id', 'in', ids).where('state', '=', 'open')
          .where((eb) => eb.or([...cutoffs].map(([rank, cutoff]) => eb.and([eb('severity_rank', '=', rank), eb('created_at', '<', cutoff)]))))
          .groupBy('repository_id').execute();
        for (const row of counts) perRepo.set(row.repository_id, (perRepo.get(row.repository_id) ?? 0) + Number(row.n));
        for (const [rank, cutoff] of cutoffs) {
          oldest.push(...await db.selectFrom('findings').select(columns).where('ref_id', 'in', ids).where('state', '=', 'open')
            .where('severity_rank', '=', rank).where('created_at', '<', cutoff).orderBy('created_at').orderBy('id').limit(limit).execute());
        }
      }
      return { perRepo, oldest };
    },

    /**
     * Default-branch findings fixed at or after `since`, and those open now that may be past due: of
     * each severity, first seen before its cutoff (now minus the shortest window that can apply to
     * it); severities absent from `cutoffs` have no SLA.
     */
    async summaryFindings(refIds: readonly string[], since: string, cutoffs: ReadonlyMap<number, string>): Promise<{ fixed: SummaryFinding[]; open: SummaryFinding[] }> {
      const fixed: SummaryFinding[] = [];
      const open: SummaryFinding[] = [];
      const columns = ['id', 'repository_id', 'rule_id', 'aliases', 'message', 'severity', 'state', 'created_at', 'fixed_at', 'file_path', 'package_name'] as const;
      for (const ids of chunks(refIds)) {
        fixed.push(...await db.selectFrom('findings').select(columns)
          .where('ref_id', 'in', ids).where('state', '=', 'fixed').where('fixed_at', '>=', since).execute());
        if (cutoffs.size === 0) continue;
        open.push(...await db.selectFrom('findings').select(columns)
          .where('ref_id', 'in', ids).where('state', '=', 'open')
          .where((eb) => eb.or([...cutoffs].map(([rank, cutoff]) => eb.and([eb('severity_rank', '=', rank), eb('created_at', '<', cutoff)]))))
          .execute());
      }
      return { fixed, open };
    },
  };
}

