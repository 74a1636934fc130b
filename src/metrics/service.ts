import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { Database } from '../db/schema.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { Policy as AccessPolicy } from '../policy.js';
import type { Severity } from '../domain/scan.js';
import { SEVERITIES } from '../domain/scan.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import { notFound } from '../problem.js';
import { now } from '../db/time.js';
import { policyStore } from '../gates/store.js';
import type { Policy } from '../gates/types.js';
import { addDays, bucketOf, dayOf, type Interval } from './days.js';
import { dayPoints, kevAddedAtOf, type DayPoint } from './snapshot.js';
import { slaOf, slaState, slaWindow, slaWindows, withSla, type Sla } from '../domain/sla.js';
import { percentile, roundDays } from './stats.js';
import { metricsStore, type ScopedRepo, type SummaryFinding } from './store.js';

const ORG = 'The organization';
const DAY_MS = 86_400_000;
/** Repositories whose history one snapshot round reads at once. */
const BATCH = 500;
/** Oldest breached findings a summary names. */
const OLDEST = 10;

export interface SeriesQuery {
  from: string;
  to: string;
  interval: Interval;
  severity?: Severity;
}

export interface MetricsPoint {
  date: string;
  open: Record<Severity, number>;
  new: number;
  fixed: number;
  dismissed: number;
  reopened: number;
  breached: number;
  kev_open: number;
  vulnerabilities: number;
}

export interface BreachedFinding extends SummaryFinding {
  due_at: string;
  repository_name: string;
}

export interface Summary {
  mttr: Record<Severity, { median_days: number | null; p90_days: number | null; fixed: number }>;
  sla_compliance: { fixed_within_sla: number; fixed: number; ratio: number | null };
  breached_now: number;
  oldest_breached: BreachedFinding[];
  breached_by_repository: { repository_id: string; name: string; breached: number }[];
}

/** What a request reads: repositories (already allowed; read only when needed), and whether that is a whole org. */
interface Scope {
  repos: () => Promise<ScopedRepo[]>;
  orgId: string | null;
  orgPolicy: Policy;
  /** Without orgId: the repositories' ids. */
  repositoryIds?: string[];
}

export function metricsService(db: Kysely<Database>, authorizedRepo: AuthorizedRepo, access: AccessPolicy, audit: AuditStore) {
  const store = metricsStore(db);
  const policies = policyStore(db);
  const slaFor = (repo: ScopedRepo, orgPolicy: Policy): Sla => slaOf(repo.policy ?? orgPolicy);

  /**
   * An org's repositories the caller may read, or a team's of them. The org's own rolled-up series
   * (org_snapshots) serves a caller who reads all of it; one who reads only what their teams hold
   * (base_role "none") gets the sum of those repositories' snapshots.
   */
  async function orgScope(actor: Actor, orgId: string, teamId: string | undefined): Promise<Scope> {
    await access.require(actor, 'metrics.read', { orgId, what: ORG });
    const orgPolicy = await store.orgPolicy(orgId);
    const readerId = access.repoReader(actor);
    const readable = readerId === null ? null : await store.readableRepositoryIds(orgId, readerId);
    const partial = readable !== null && readable.readable.length < readable.total ? new Set(readable.readable) : null;
    if (teamId === undefined) {
      if (!partial) return { repos: () => store.scoped({ orgId }), orgId, orgPolicy };
      const ids = [...partial];
      return { repos: async () => (ids.length ? store.scoped({ repositoryIds: ids }) : []), orgId: null, orgPolicy, repositoryIds: ids };
    }
    const teamIds = await store.teamRepositoryIds(orgId, teamId);
    if (!teamIds) throw notFound('The team');
    const ids = partial ? teamIds.filter((id) => partial.has(id)) : teamIds;
    return { repos: async () => (ids.length ? store.scoped({ repositoryIds: ids }) : []), orgId: null, orgPolicy, repositoryIds: ids };
  }

  async function repoScope(actor: Actor, repositoryId: string): Promise<Scope> {
    const repo = await authorizedRepo(actor, repositoryId, 'repo_metrics.read');
    return { repos: () => store.scoped({ repositoryIds: [repo.id] }), orgId: null, orgPolicy: await store.orgPolicy(repo.org_id), repositoryIds: [repo.id] };
  }

  async function series(scope: Scope, query: SeriesQuery): Promise<MetricsPoint[]> {
    const ids = scope.repositoryIds ?? [];
    const days = scope.orgId !== null
      ? await store.daily({ orgId: scope.orgId }, query.from, query.to)
      : ids.length ? await store.daily({ repositoryIds: ids }, query.from, query.to) : [];
    const byDay = new Map(days.map((d) => [d.day, d]));
    // Every day of the range has a point (zero before any snapshot); a bucket's open figures are its last day's.
    const buckets = new Map<string, MetricsPoint>();
    for (let day = query.from; day <= query.to; day = addDays(day, 1)) {
      const p = byDay.get(day);
      const key = bucketOf(day, query.interval);
      const bucket = buckets.get(key) ?? { date: key, open: { critical: 0, high: 0, medium: 0, low: 0, info: 0 }, new: 0, fixed: 0, dismissed: 0, reopened: 0, breached: 0, kev_open: 0, vulnerabilities: 0 };
      bucket.open = p ? { ...p.open } : { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
      bucket.breached = p?.breached ?? 0;
      bucket.kev_open = p?.kev_open ?? 0;
      bucket.vulnerabilities = p?.vulnerabilities ?? 0;
      bucket.new += p?.opened ?? 0;
      bucket.fixed += p?.fixed ?? 0;
      bucket.dismissed += p?.dismissed ?? 0;
      bucket.reopened += p?.reopened ?? 0;
      buckets.set(key, bucket);
    }
    const points = [...buckets.values()];
    if (query.severity) {
      // Snapshots keep open counts per severity only: the filter narrows the open figures.
      for (const point of points) point.open = Object.fromEntries(SEVERITIES.map((s) => [s, s === query.severity ? point.open[s] : 0])) as Record<Severity, number>;
    }
    return points;
  }

  async function summary(scope: Scope, windowDays: number): Promise<Summary> {
    const at = Date.now();
    const since = new Date(at - windowDays * DAY_MS).toISOString();
    const withRef = (await scope.repos()).filter((r) => r.refId !== undefined);
    const repoById = new Map(withRef.map((r) => [r.id, r]));
    // Only findings first seen before the shortest window any of these repositories gives their severity can be past due.
    const slas = [slaOf(scope.orgPolicy), ...withRef.filter((r) => r.policy).map((r) => slaOf(r.policy!))];
    const cutoffs = new Map<number, string>();
    for (const severity of SEVERITIES) {
      const days = slas.flatMap((sla) => [severity === 'info' ? null : sla[severity], sla.kev_days]).filter((d): d is number => d !== null);
      if (days.length) cutoffs.set(SEVERITY_RANK[severity], new Date(at - Math.min(...days) * DAY_MS).toISOString());
    }
    // One SLA for all and no KEV days: the database counts what is past due, and names the oldest.
    const exact = slas.every((sla) => JSON.stringify(sla) === JSON.stringify(slas[0])) && slas[0]!.kev_days === null;
    const refIds = withRef.map((r) => r.refId!);
    const { fixed, open } = await store.summaryFindings(refIds, since, exact ? new Map() : cutoffs);
    const counted = exact ? await store.breached(refIds, cutoffs, OLDEST) : null;
    const kev = await store.kevImports();
    const bySeverity = new Map<string, number[]>();
    let withinSla = 0;
    let underSla = 0;
    for (const f of fixed) {
      const days = (Date.parse(f.fixed_at!) - Date.parse(f.created_at)) / DAY_MS;
      bySeverity.set(f.severity, [...(bySeverity.get(f.severity) ?? []), days]);
      const window = slaWindow(slaFor(repoById.get(f.repository_id)!, scope.orgPolicy), f.severity, f.created_at, kevAddedAtOf(f, kev));
      if (!window) continue;
      underSla++;
      if (Date.parse(f.fixed_at!) <= window.due) withinSla++;
    }
    const mttr = Object.fromEntries(SEVERITIES.map((s) => {
      const values = bySeverity.get(s) ?? [];
      return [s, { median_days: roundDays(percentile(values, 50)), p90_days: roundDays(percentile(values, 90)), fixed: values.length }];
    })) as Summary['mttr'];
    const breached: BreachedFinding[] = [];
    const perRepo = new Map<string, number>();
    for (const f of open) {
      const repo = repoById.get(f.repository_id)!;
      const windows = slaWindows(slaFor(repo, scope.orgPolicy), f.severity, f.created_at, kevAddedAtOf(f, kev));
      if (windows.length === 0 || slaState(windows, at) !== 'breached') continue;
      breached.push({ ...f, due_at: new Date(Math.min(...windows.map((w) => w.due))).toISOString(), repository_name: repo.name });
      perRepo.set(repo.id, (perRepo.get(repo.id) ?? 0) + 1);
    }
    if (counted) {
      for (const [id, n] of counted.perRepo) perRepo.set(id, n);
      for (const f of counted.oldest) {
        const repo = repoById.get(f.repository_id)!;
        breached.push({ ...f, due_at: new Date(slaWindow(slaFor(repo, scope.orgPolicy), f.severity, f.created_at, null)!.due).toISOString(), repository_name: repo.name });
      }
    }
    breached.sort((a, b) => a.due_at.localeCompare(b.due_at) || a.id.localeCompare(b.id));
    const breachedNow = counted ? [...counted.perRepo.values()].reduce((a, b) => a + b, 0) : breached.length;
    return {
      mttr,
      sla_compliance: { fixed_within_sla: withinSla, fixed: underSla, ratio: underSla ? Math.round((withinSla / underSla) * 10_000) / 10_000 : null },
      breached_now: breachedNow,
      oldest_breached: breached.slice(0, OLDEST),
      breached_by_repository: [...perRepo.entries()].map(([id, count]) => ({ repository_id: id, name: repoById.get(id)!.name, breached: count }))
        .sort((a, b) => b.breached - a.breached || a.name.localeCompare(b.name)),
    };
  }

  return {
    async sla(actor: Actor, orgId: string): Promise<Sla> {
      await access.require(actor, 'org_policy.read', { orgId, what: ORG });
      return slaOf(await policies.orgPolicy(orgId));
    },

    /** Written into the org's policy (max_age_days, max_age_kev_days): the gate sees the same setting. */
    async setSla(actor: Actor, orgId: string, sla: Partial<Sla>, ip: string): Promise<Sla> {
      await access.require(actor, 'org_policy.manage', { orgId, what: ORG });
      const document = withSla(await policies.orgPolicy(orgId), sla);
      await policies.setOrgPolicy(orgId, document, now());
      await audit.record({ action: 'policy.updated', actor: actor.user, orgId, ip, target: { type: 'org', id: orgId }, details: { policy: document } });
      return slaOf(document);
    },

    orgSeries: async (actor: Actor, orgId: string, teamId: string | undefined, query: SeriesQuery) => series(await orgScope(actor, orgId, teamId), query),
    repoSeries: async (actor: Actor, repositoryId: string, query: SeriesQuery) => series(await repoScope(actor, repositoryId), query),
    orgSummary: async (actor: Actor, orgId: string, teamId: string | undefined, windowDays: number) => summary(await orgScope(actor, orgId, teamId), windowDays),
    repoSummary: async (actor: Actor, repositoryId: string, windowDays: number) => summary(await repoScope(actor, repositoryId), windowDays),

    /**
     * Writes every repository's missing days up to yesterday (the last day that has ended, by the
     * service's clock): after downtime every missing day, after the migration every day since the
     * repository's first finding. Days already written stay, so running again, or on two instances
     * at once, changes nothing. Returns how many days were written.
     */
    async snapshot(): Promise<number> {
      const yesterday = addDays(dayOf(Date.now()), -1);
      const kev = await store.kevImports();
      let written = 0;
      for (const orgId of await store.orgIds()) {
        const orgPolicy = await store.orgPolicy(orgId);
        const last = await store.lastDays(orgId);
        const due = (await store.scoped({ orgId })).filter((repo) => repo.refId !== undefined && (last.get(repo.id) ?? '') < yesterday);
        let earliest: string | null = null;
        // Repositories a few hundred at a time: one read of their findings and events each.
        for (let i = 0; i < due.length; i += BATCH) {
          const batch = due.slice(i, i + BATCH);
          const histories = await store.histories(batch.map((r) => ({ id: r.id, refId: r.refId! })));
          const rows: { repositoryId: string; points: DayPoint[] }[] = [];
          for (const repo of batch) {
            const history = histories.get(repo.id)!;
            const findings = history.findings.map((f) => ({ ...f, kev_added_at: kevAddedAtOf(f, kev) }));
            const firsts = [...findings.map((f) => f.created_at), ...history.events.map((e) => e.created_at)];
            if (firsts.length === 0) continue;
            const lastDay = last.get(repo.id);
            const from = lastDay !== undefined ? addDays(lastDay, 1) : dayOf(firsts.reduce((a, b) => (a < b ? a : b)));
            const days: string[] = [];
            for (let day = from; day <= yesterday; day = addDays(day, 1)) days.push(day);
            if (days.length === 0) continue;
            rows.push({ repositoryId: repo.id, points: dayPoints(findings, history.events, slaFor(repo, orgPolicy), days) });
            if (earliest === null || from < earliest) earliest = from;
          }
          await store.writeDays(orgId, rows);
          written += rows.reduce((sum, r) => sum + r.points.length, 0);
        }
        if (earliest !== null) await store.rollUp(orgId, earliest, yesterday);
      }
      return written;
    },
  };
}
