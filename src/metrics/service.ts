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
import { addDays, bucketOf, dayOf, startOf, type Interval } from './days.js';
import { batches, dayPoints, kevAddedAtOf, type DayPoint } from './snapshot.js';
import { slaOf, slaState, slaWindow, slaWindows, withSla, type Sla } from '../domain/sla.js';
import { percentile, roundDays } from './stats.js';
import { metricsStore, type PastDue, type RepoScope, type SummaryFinding } from './store.js';

const ORG = 'The organization';
const DAY_MS = 86_400_000;
const EPOCH = new Date(0).toISOString();
/**
 * Repositories whose history one snapshot round reads at once: at most 500, and no more than about
 * 5,000 findings between them (a repository with more is read alone). Sized by findings, since a
 * batch of 500 repositories of a thousand findings each held 800 MiB of rows in the serving process
 * and paused it for 1.5 s collecting them. The first round over 10 million findings (bench
 * portfolio, session 37): 20,000 a batch, 417 MiB at most and 41 s; 5,000, 388 MiB and 45 s.
 */
const BATCH = { repositories: 500, findings: 5_000 };
/** Oldest breached findings a summary names. */
const OLDEST = 10;
/** Repositories a summary names by breached findings, the most first: an org of thousands would otherwise send every one. */
const MOST_BREACHED = 25;

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
}

export interface Summary {
  mttr: Record<Severity, { median_days: number | null; p90_days: number | null; fixed: number }>;
  sla_compliance: { fixed_within_sla: number; fixed: number; ratio: number | null };
  breached_now: number;
  oldest_breached: BreachedFinding[];
  breached_by_team: { team_id: string; name: string; breached: number }[];
  breached_by_repository: { repository_id: string; name: string; breached: number }[];
}

/** What a request reads: the repositories in scope (as SQL), and the org whose rolled-up rows answer when it is all of one. */
interface Scope {
  repos: RepoScope;
  orgId: string;
  wholeOrg: boolean;
  orgPolicy: Policy;
}

export function metricsService(db: Kysely<Database>, authorizedRepo: AuthorizedRepo, access: AccessPolicy, audit: AuditStore) {
  const store = metricsStore(db);
  const policies = policyStore(db);

  /**
   * An org's repositories the caller may read, or a team's of them. The org's own rolled-up series
   * (org_snapshots) serves a caller who reads all of it; one who reads only what their teams hold
   * (base_role "none") gets the sum of those repositories' snapshots.
   */
  async function orgScope(actor: Actor, orgId: string, teamId: string | undefined): Promise<Scope> {
    await access.require(actor, 'metrics.read', { orgId, what: ORG });
    const orgPolicy = await store.orgPolicy(orgId);
    const readerId = access.repoReader(actor);
    const partial = readerId !== null && !await store.readsWholeOrg(orgId, readerId);
    if (teamId !== undefined && !await store.teamExists(orgId, teamId)) throw notFound('The team');
    return {
      repos: { orgId, ...(partial ? { readerId: readerId! } : {}), ...(teamId !== undefined ? { teamId } : {}) },
      orgId, wholeOrg: !partial && teamId === undefined, orgPolicy,
    };
  }

  async function repoScope(actor: Actor, repositoryId: string): Promise<Scope> {
    const repo = await authorizedRepo(actor, repositoryId, 'repo_metrics.read');
    return { repos: { repositoryId: repo.id }, orgId: repo.org_id, wholeOrg: false, orgPolicy: await store.orgPolicy(repo.org_id) };
  }

  async function series(scope: Scope, query: SeriesQuery): Promise<MetricsPoint[]> {
    const days = await store.daily(scope.wholeOrg ? { wholeOrg: scope.orgId } : scope.repos, query.from, query.to);
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
    const own = await store.ownPolicies(scope.repos);
    const orgSla = slaOf(scope.orgPolicy);
    const slaFor = (repositoryId: string): Sla => { const policy = own.get(repositoryId); return policy ? slaOf(policy) : orgSla; };
    const slas = [orgSla, ...[...own.values()].map(slaOf)];
    // Only findings first seen before the shortest window any of these repositories gives their severity can be past due.
    const cutoffs = new Map<number, string>();
    for (const severity of SEVERITIES) {
      const days = slas.flatMap((sla) => [severity === 'info' ? null : sla[severity], sla.kev_days]).filter((d): d is number => d !== null);
      if (days.length) cutoffs.set(SEVERITY_RANK[severity], new Date(at - Math.min(...days) * DAY_MS).toISOString());
    }
    const kevClock = slas.some((sla) => sla.kev_days !== null);
    // One SLA for all and no KEV days: the database counts what is past due, and names the oldest.
    const exact = !kevClock && slas.every((sla) => JSON.stringify(sla) === JSON.stringify(orgSla));
    const [fixed, counted, candidates, kev] = await Promise.all([
      store.fixedSince(scope.repos, since, kevClock),
      exact ? store.pastDue(scope.repos, scope.orgId, cutoffs, OLDEST, MOST_BREACHED) : null,
      exact ? [] : store.mayBePastDue(scope.repos, cutoffs),
      kevClock ? store.kevImports() : new Map<string, string>(),
    ]);
    const bySeverity = new Map<string, number[]>();
    let withinSla = 0;
    let underSla = 0;
    for (const f of fixed) {
      const values = bySeverity.get(f.severity);
      if (values) values.push(f.open_ms / DAY_MS);
      else bySeverity.set(f.severity, [f.open_ms / DAY_MS]);
      // First seen is read only with a KEV clock; without one every window starts at first seen, so
      // counted from the epoch the time open says whether it was met.
      const seen = f.created_at ?? EPOCH;
      const window = slaWindow(slaFor(f.repository_id), f.severity, seen, f.rule_id === undefined ? null : kevAddedAtOf({ rule_id: f.rule_id, aliases: f.aliases ?? null }, kev));
      if (!window) continue;
      underSla++;
      if (Date.parse(seen) + f.open_ms <= window.due) withinSla++;
    }
    const mttr = Object.fromEntries(SEVERITIES.map((s) => {
      const values = bySeverity.get(s) ?? [];
      return [s, { median_days: roundDays(percentile(values, 50)), p90_days: roundDays(percentile(values, 90)), fixed: values.length }];
    })) as Summary['mttr'];
    let pastDue: Omit<PastDue, 'oldest'>;
    const breached: BreachedFinding[] = [];
    if (counted) {
      pastDue = counted;
      for (const f of counted.oldest) breached.push({ ...f, due_at: new Date(slaWindow(orgSla, f.severity, f.created_at, null)!.due).toISOString() });
    } else {
      const perRepo = new Map<string, { repository_id: string; name: string; breached: number }>();
      for (const f of candidates) {
        const windows = slaWindows(slaFor(f.repository_id), f.severity, f.created_at, kevAddedAtOf(f, kev));
        if (windows.length === 0 || slaState(windows, at) !== 'breached') continue;
        breached.push({ ...f, due_at: new Date(Math.min(...windows.map((w) => w.due))).toISOString() });
        const repo = perRepo.get(f.repository_id) ?? { repository_id: f.repository_id, name: f.repository_name, breached: 0 };
        repo.breached++;
        perRepo.set(f.repository_id, repo);
      }
      const teams = new Map<string, { team_id: string; name: string; breached: number }>();
      for (const link of perRepo.size ? await store.teamRepositories(scope.orgId) : []) {
        const n = perRepo.get(link.repository_id)?.breached;
        if (!n) continue;
        const team = teams.get(link.team_id) ?? { team_id: link.team_id, name: link.name, breached: 0 };
        team.breached += n;
        teams.set(link.team_id, team);
      }
      const most = <T extends { name: string; breached: number }>(items: Iterable<T>) => [...items].sort((a, b) => b.breached - a.breached || a.name.localeCompare(b.name));
      pastDue = { total: breached.length, repositories: most(perRepo.values()).slice(0, MOST_BREACHED), teams: most(teams.values()) };
    }
    breached.sort((a, b) => a.due_at.localeCompare(b.due_at) || a.id.localeCompare(b.id));
    return {
      mttr,
      sla_compliance: { fixed_within_sla: withinSla, fixed: underSla, ratio: underSla ? Math.round((withinSla / underSla) * 10_000) / 10_000 : null },
      breached_now: pastDue.total,
      oldest_breached: breached.slice(0, OLDEST),
      breached_by_team: pastDue.teams,
      breached_by_repository: pastDue.repositories,
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
        // A repository with snapshots reads from the day after its last (its fixed findings only lately
        // fixed: see histories), one without reads its whole history.
        const due = (await store.repositories(orgId)).filter((repo) => repo.refId !== undefined && (last.get(repo.id) ?? '') < yesterday)
          .map((repo) => ({ ...repo, findings: repo.open + (last.has(repo.id) ? 0 : repo.fixed) }));
        const before = new Date(startOf(addDays(yesterday, 1))).toISOString();
        let earliest: string | null = null;
        // Repositories a few hundred (or thousand findings) at a time: one read of their findings and events each.
        for (const batch of batches(due, BATCH)) {
          // From the day after the batch's earliest last snapshot; the whole history if one has none.
          const lastDays = batch.map((r) => last.get(r.id));
          const earliestLast = lastDays.some((day) => day === undefined) ? null : (lastDays as string[]).sort()[0]!;
          const since = earliestLast === null ? null : new Date(startOf(addDays(earliestLast, 1))).toISOString();
          const histories = await store.histories(batch.map((r) => ({ id: r.id, refId: r.refId! })), since, before);
          const rows: { repositoryId: string; points: DayPoint[] }[] = [];
          for (const repo of batch) {
            const history = histories.get(repo.id)!;
            const { findings, events } = history;
            let first: string | null = null;
            for (const f of findings) {
              f.kev_added_at = kevAddedAtOf(f, kev);
              if (first === null || f.created_at < first) first = f.created_at;
            }
            for (const e of events) if (first === null || e.created_at < first) first = e.created_at;
            const lastDay = last.get(repo.id);
            // Nothing before today and no snapshot yet: first scanned today, its first point is tomorrow's.
            if (first === null && lastDay === undefined) continue;
            const from = lastDay !== undefined ? addDays(lastDay, 1) : dayOf(first!);
            const days: string[] = [];
            for (let day = from; day <= yesterday; day = addDays(day, 1)) days.push(day);
            if (days.length === 0) continue;
            rows.push({ repositoryId: repo.id, points: dayPoints(findings, events, slaOf(repo.policy ?? orgPolicy), days) });
            if (earliest === null || from < earliest) earliest = from;
            // This runs in a serving process: let its requests in between repositories.
            await new Promise((resolve) => setImmediate(resolve));
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
