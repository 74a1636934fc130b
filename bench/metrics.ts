import { sql } from 'kysely';
import { seedRepos } from './seed.js';
import { postgresAvailable, startBenchServer } from './support.js';
import { newId } from '../src/db/ids.js';
import type { Db } from '../src/db/index.js';

export interface MetricsResult {
  database: string;
  measure: string;
  ms: number;
  target: number | null;
  detail: string;
}

/** Repositories seeded (BENCH_METRICS_REPOS; 10,000 by default), each with a year of snapshots. */
const REPOS = Number(process.env.BENCH_METRICS_REPOS ?? 10_000);
const DAYS = 365;
/** Findings per repository's default branch: a tenth fixed within the window, the rest open. */
const FINDINGS = 10;
const TEAM = 100;
const RUNS = 5;

/**
 * On PostgreSQL when it answers, else SQLite: an org of REPOS repositories with DAYS days of snapshots each (written by the database
 * itself) and FINDINGS findings each; the org's 365-day series and 90-day summary, a team's of TEAM
 * repositories, each the median of RUNS requests over HTTP; then the daily snapshot of every
 * repository (its last day removed first, as at the first round after midnight).
 */
export async function benchMetrics(log: (line: string) => void): Promise<MetricsResult[]> {
  const out: MetricsResult[] = [];
  // The targets are PostgreSQL's (the scale of ten thousand repositories); SQLite when it does not answer.
  for (const kind of (await postgresAvailable()) ? ['postgres'] as const : ['sqlite'] as const) {
    const server = await startBenchServer(kind);
    const record = (r: Omit<MetricsResult, 'database'>) => {
      out.push({ database: kind, ...r });
      log(`${kind.padEnd(8)} ${r.measure.padEnd(52)} ${r.ms.toFixed(0)} ms${r.target === null ? '' : ` (target ${r.target} ms)`}  ${r.detail}`);
    };
    try {
      let started = performance.now();
      const repos = await seedRepos(server.db, server.orgId, REPOS, { scanned: true, prefix: 'metrics' });
      const teamId = newId();
      await server.db.kysely.insertInto('teams').values({ id: teamId, org_id: server.orgId, name: 'bench', name_key: 'bench', description: '', created_at: new Date().toISOString(), updated_at: new Date().toISOString() }).execute();
      await server.db.kysely.insertInto('team_repositories').values(repos.slice(0, TEAM).map((id) => ({ team_id: teamId, repository_id: id, role: 'read' as const }))).execute();
      const lastDay = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      await seedSnapshots(server.db, server.orgId, lastDay);
      await seedFindings(server.db, server.orgId);
      log(`${kind.padEnd(8)} seeded ${REPOS.toLocaleString('en')} repositories x ${DAYS} days in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const from = new Date(Date.parse(lastDay) - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
      const time = async (url: string) => {
        const runs: number[] = [];
        for (let i = 0; i < RUNS + 1; i++) {
          const t0 = performance.now();
          // The warm-up may meet a keep-alive connection the server closed during the long seeding: once more then.
          const res = await fetch(`${server.origin}${url}`, { headers: { authorization: `Bearer ${server.key}` } })
            .catch((error: unknown) => (i === 0 ? fetch(`${server.origin}${url}`, { headers: { authorization: `Bearer ${server.key}` } }) : Promise.reject(error)));
          if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
          if (i > 0) runs.push(performance.now() - t0);
        }
        runs.sort((a, b) => a - b);
        return { ms: runs[Math.floor(runs.length / 2)]!, detail: `runs ${runs.map((r) => r.toFixed(0)).join(', ')} ms` };
      };
      record({ measure: `org series, ${DAYS} days`, target: 200, ...await time(`/api/v1/orgs/${server.orgId}/metrics?from=${from}&to=${lastDay}`) });
      record({ measure: `org series, ${DAYS} days by week`, target: 200, ...await time(`/api/v1/orgs/${server.orgId}/metrics?from=${from}&to=${lastDay}&interval=week`) });
      record({ measure: 'org summary, 90 days', target: 200, ...await time(`/api/v1/orgs/${server.orgId}/metrics/summary?window=90d`) });
      record({ measure: `team series (${TEAM} repositories), ${DAYS} days`, target: 100, ...await time(`/api/v1/orgs/${server.orgId}/metrics?from=${from}&to=${lastDay}&team=${teamId}`) });
      record({ measure: `team summary (${TEAM} repositories)`, target: 100, ...await time(`/api/v1/orgs/${server.orgId}/metrics/summary?team=${teamId}`) });
      await server.db.kysely.deleteFrom('repo_snapshots').where('day', '=', lastDay).execute();
      started = performance.now();
      const written = await server.app.services.metricsService.snapshot();
      record({ measure: `daily snapshot of ${REPOS.toLocaleString('en')} repositories`, target: 60_000, ms: performance.now() - started, detail: `${written.toLocaleString('en')} days written` });
    } finally {
      await server.close();
    }
  }
  return out;
}

/** DAYS days up to `lastDay` for every repository of the org, made by the database from a day series. */
async function seedSnapshots(db: Db, orgId: string, lastDay: string): Promise<void> {
  const postgres = db.dialect === 'postgres';
  const day = postgres ? sql`to_char(${lastDay}::date - d.n, 'YYYY-MM-DD')` : sql`date(${lastDay}, '-' || d.n || ' days')`;
  const days = postgres ? sql`generate_series(0, ${sql.lit(DAYS - 1)}) as d(n)` : sql`d`;
  const cte = postgres ? sql`` : sql`with recursive d(n) as (select 0 union all select n + 1 from d where n < ${sql.lit(DAYS - 1)}) `;
  await sql`${cte}insert into repo_snapshots (repository_id, org_id, day, open_critical, open_high, open_medium, open_low, open_info,
      opened, fixed, dismissed, reopened, breached, kev_open, vulnerabilities)
    select r.id, r.org_id, ${day}, d.n % 3, d.n % 5, d.n % 7, d.n % 11, d.n % 2, d.n % 2, (d.n + 1) % 2, 0, 0, d.n % 3, 0, d.n % 4
    from repos r cross join ${days} where r.org_id = ${orgId}`.execute(db.kysely);
  if (postgres) await sql`analyze repo_snapshots`.execute(db.kysely);
}

/** FINDINGS findings on every repository's default branch, first seen over the last 200 days; every tenth fixed 1-30 days later. */
async function seedFindings(db: Db, orgId: string): Promise<void> {
  const postgres = db.dialect === 'postgres';
  const at = (offsetDays: RawSql) => (postgres ? sql`now() - (${offsetDays}) * interval '1 day'` : sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (${offsetDays}) || ' days')`);
  const k = sql.ref('k.n');
  const series = postgres ? sql`generate_series(0, ${sql.lit(FINDINGS - 1)}) as k(n)` : sql`k`;
  const cte = postgres ? sql`` : sql`with recursive k(n) as (select 0 union all select n + 1 from k where n < ${sql.lit(FINDINGS - 1)}) `;
  const seen = sql`((${k} * 17 + length(a.id)) % 200 + 31)`;
  await sql`${cte}insert into findings (id, repository_id, ref_id, analysis_id, fingerprint, rule_id, message, severity, severity_rank, state,
      first_upload_id, created_at, updated_at, fixed_at)
    select a.id || '-' || ${k}, a.repository_id, a.ref_id, a.id, 'fp-' || ${k}, 'bench/rule-' || ${k}, 'Benchmark finding',
      case ${k} % 4 when 0 then 'critical' when 1 then 'high' when 2 then 'medium' else 'low' end, 4 - ${k} % 4,
      case when ${k} = 0 then 'fixed' else 'open' end, a.last_upload_id, ${at(seen)}, ${at(seen)},
      case when ${k} = 0 then ${at(sql`${seen} - (${k} + 1) * 3`)} end
    from analyses a inner join repos r on r.id = a.repository_id cross join ${series} where r.org_id = ${orgId}`.execute(db.kysely);
  await sql`insert into org_policies (org_id, document, updated_at) values (${orgId}, ${JSON.stringify({ max_age_days: { critical: 7, high: 30, medium: 90 } })}, ${new Date().toISOString()})`.execute(db.kysely);
  // What autovacuum does within a minute of a bulk load (it vacuums after inserts since PostgreSQL 13):
  // statistics, and the visibility map the summary's index-only scans rely on.
  if (postgres) await sql`vacuum analyze findings`.execute(db.kysely);
}

type RawSql = ReturnType<typeof sql>;
