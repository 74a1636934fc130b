import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../src/db/index.js';
import { newId } from '../src/db/ids.js';
import { now } from '../src/db/time.js';
import { packageOfPurl } from '../src/domain/ecosystems/index.js';
import { importPath } from '../src/advisories/import-path.js';
import { advisoryZipLimits } from '../src/services.js';
import { loadConfig } from '../src/config.js';
import { seedRepos } from './seed.js';
import { PG_ADMIN_URL, postgresAvailable } from './support.js';

/**
 * A large company's portfolio on PostgreSQL: BENCH_PORTFOLIO_REPOS repositories (10,000) in 20
 * organisations with BENCH_PORTFOLIO_FINDINGS findings (10 million) and a fifth as many components,
 * seeded in bulk by the database itself (generate_series). Half the repositories ship log4j-core
 * 2.14.1. A `serve` process (its own process, from source, two ingest workers) is started on the
 * seeded database; while 50 uploads a minute arrive, four readers measure what people do: the
 * dashboard (an org's repositories and the top advisories), an org's repositories by open
 * criticals, a repository's open critical findings, and "where is log4j-core" across the portfolio.
 * Then an advisory for log4j-core is imported (the `advisories import` code path) and timed until
 * every repository it affects is re-matched. The serve process's resident memory is sampled
 * throughout.
 */
export interface PortfolioResult {
  scale: { repos: number; orgs: number; findings: number; components: number; seedSeconds: number };
  reads: { name: string; count: number; p50: number; p95: number; max: number }[];
  uploads: { sent: number; failed: number; seconds: number };
  rematch: { repos: number; seconds: number };
  serveRssMiB: number;
  /** Each phase's peak resident memory and the process's own figures at its end. */
  phases: ({ name: string; rssMiB: number } & ProcessMetrics)[];
  verdicts: string[];
}

const ORGS = 20;
const LOG4J = 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1';
const SECRET = randomBytes(32).toString('hex');
const METRICS_TOKEN = randomBytes(16).toString('hex');

export async function benchPortfolio(log: (line: string) => void): Promise<PortfolioResult | null> {
  if (!(await postgresAvailable())) {
    log('PostgreSQL is not reachable (BENCH_DATABASE_URL): the portfolio benchmark needs it');
    return null;
  }
  const repos = Number(process.env.BENCH_PORTFOLIO_REPOS ?? 10_000);
  const findings = Number(process.env.BENCH_PORTFOLIO_FINDINGS ?? 10_000_000);
  const components = Math.round(findings / 5);
  const seconds = Number(process.env.BENCH_PORTFOLIO_SECONDS ?? 120);
  const name = `scanyard_portfolio_${randomBytes(4).toString('hex')}`;
  // A seed kept by an earlier run (BENCH_PORTFOLIO_SEED_DATABASE) is copied instead of seeding again:
  // the seed takes minutes at full scale, and the runs that change a setting want the same data.
  const kept = process.env.BENCH_PORTFOLIO_SEED_DATABASE;
  if (kept && !/^[a-z_][a-z0-9_]*$/.test(kept)) throw new Error('BENCH_PORTFOLIO_SEED_DATABASE: a lower-case database name');
  let seedSeconds = 0;
  if (kept && !(await databaseExists(kept))) {
    seedSeconds = await seedDatabase(kept, repos, findings, components, log);
    await admin(`comment on database ${kept} is 'seeded in ${seedSeconds.toFixed(0)} s: ${repos} repositories, ${findings} findings'`);
  } else if (kept) {
    const said = await keptSeed(kept);
    if (said.repos !== repos || said.findings !== findings) {
      throw new Error(`${kept} holds ${said.repos} repositories and ${said.findings} findings, not the ${repos} and ${findings} asked for: drop it or name another`);
    }
    seedSeconds = said.seconds;
  }
  if (kept) await admin(`create database ${name} template ${kept}`);
  else await admin(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = openDatabase({ kind: 'postgres', url: url.toString() });
  let serve: ChildProcess | null = null;
  try {
    await db.migrate();
    let started = performance.now();
    let seeded: Seeded;
    if (kept) {
      seeded = await seededIds(db);
      log(`copied the seed kept in ${kept} (${seeded.repoIds.length.toLocaleString('en')} repositories; drop it to seed again)`);
    } else {
      seeded = await seed(db, repos, findings, components, log);
      seedSeconds = (performance.now() - started) / 1000;
    }
    log(`seeded ${repos.toLocaleString('en')} repositories, ${findings.toLocaleString('en')} findings, ${components.toLocaleString('en')} components in ${seedSeconds.toFixed(0)} s`);

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    // What `npm start` and the image run: the build, not the source under tsx (whose compiler loads
    // into every thread and counted in the memory measured here up to session 36).
    const root = path.resolve(import.meta.dirname, '..');
    execFileSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { stdio: 'inherit' });
    serve = spawn(process.execPath, [path.join(root, 'dist/src/main.js'), 'serve'], {
      env: {
        ...process.env, DATABASE_URL: url.toString(), PORT: String(port), HOST: '127.0.0.1', SERVICE_BASE_URL: origin,
        SERVICE_SESSION_SECRET: SECRET, LOG_LEVEL: 'warn', SERVICE_WORKERS: '2', SERVICE_METRICS_TOKEN: METRICS_TOKEN,
        SERVICE_RATE_LIMIT_USER: '10000000', SERVICE_RATE_LIMIT_IP: '10000000', SERVICE_RATE_LIMIT_AUTH: '10000000',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const rss = trackRss(serve.pid!);
    await waitFor(`${origin}/readyz`, 60_000);
    const phase = async (name: string) => {
      const m = await processMetrics(origin);
      const peak = rss.phase(name);
      result.phases.push({ name, rssMiB: peak, ...m });
      log(`${name}: peak RSS ${peak} MiB, main thread heap ${m.heapMiB} MiB, event loop lag max ${m.lagMaxMs} ms, GC ${m.gcSeconds.toFixed(1)} s so far`);
    };
    const result: PortfolioResult = {
      scale: { repos, orgs: ORGS, findings, components, seedSeconds }, reads: [], uploads: { sent: 0, failed: 0, seconds },
      rematch: { repos: 0, seconds: 0 }, serveRssMiB: 0, phases: [], verdicts: [],
    };
    await phase('started');
    const login = await fetch(`${origin}/auth/dev-login`, { method: 'POST', headers: { origin } });
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const user = (await login.json()) as { id: string };
    await db.kysely.insertInto('memberships').values(seeded.orgIds.map((orgId) => ({ org_id: orgId, user_id: user.id, role: 'owner' as const, created_at: now() }))).execute();
    const keyRes = await fetch(`${origin}/api/v1/apikeys`, { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: ['upload'] }) });
    const { key } = (await keyRes.json()) as { key: string };

    // Reads and uploads together.
    const latencies = new Map<string, number[]>();
    const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;
    const get = async (kind: string, paths: string[]) => {
      const t0 = performance.now();
      const responses = await Promise.all(paths.map((p) => fetch(`${origin}${p}`, { headers: { cookie } })));
      for (const r of responses) {
        if (!r.ok) throw new Error(`${kind}: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
      }
      latencies.set(kind, [...(latencies.get(kind) ?? []), performance.now() - t0]);
    };
    const reads: Record<string, () => Promise<void>> = {
      'dashboard (an org\'s repositories, top advisories)': () => get('dashboard', [`/api/v1/orgs/${pick(seeded.orgIds)}/repos?per_page=100`, '/api/v1/advisories/top']),
      'org repositories by open criticals (?sort=critical)': () => get('sorted', [`/api/v1/orgs/${pick(seeded.orgIds)}/repos?sort=critical&per_page=50`]),
      'a repository\'s open critical findings (filtered page)': () => get('findings', [`/api/v1/repos/${pick(seeded.repoIds)}/findings?state=open&severity=critical&per_page=50`]),
      'where is log4j-core (components across the portfolio)': () => get('components', ['/api/v1/components?purl=pkg:maven/org.apache.logging.log4j/log4j-core&per_page=50']),
    };
    const until = Date.now() + seconds * 1000;
    const uploads = result.uploads;
    const uploader = (async () => {
      for (let i = 0; Date.now() < until; i++) {
        const next = Date.now() + 1200; // 50 a minute
        const sarif = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'bench-ci' } }, results: Array.from({ length: 20 }, (_, r) => ({ ruleId: `ci-rule-${(i + r) % 40}`, level: 'error', message: { text: `finding ${r}` }, locations: [{ physicalLocation: { artifactLocation: { uri: `src/f${r}.ts` }, region: { startLine: r + 1 } } }] })) }] });
        const res = await fetch(`${origin}/api/v1/repos/${pick(seeded.repoIds)}/upload?category=ci`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/sarif+json' }, body: sarif });
        if (res.status === 202) uploads.sent++;
        else uploads.failed++;
        await res.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
      }
    })();
    const readers = Object.values(reads).map(async (read) => {
      while (Date.now() < until) await read();
    });
    await Promise.all([uploader, ...readers]);
    await phase('reads and uploads');
    const names = Object.keys(reads);
    result.reads = ['dashboard', 'sorted', 'findings', 'components'].map((kind, i) => {
      const sorted = [...(latencies.get(kind) ?? [])].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
      return { name: names[i]!, count: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? NaN };
    });
    for (const r of result.reads) log(`${r.name.padEnd(58)} p50 ${r.p50.toFixed(0)} ms  p95 ${r.p95.toFixed(0)} ms  max ${r.max.toFixed(0)} ms  (${r.count})`);
    log(`uploads: ${uploads.sent} accepted, ${uploads.failed} refused in ${seconds} s`);

    // An advisory for log4j-core: every repository with it is matched again by the serve process's workers.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-portfolio-'));
    try {
      // OSV 1.6 (osv.dev's schema), as GHSA-jfh8-c2jp-5v3q reads for log4j-core.
      fs.writeFileSync(path.join(dir, 'GHSA-jfh8-c2jp-5v3q.json'), JSON.stringify({
        schema_version: '1.6.0', id: 'GHSA-jfh8-c2jp-5v3q', modified: new Date().toISOString(), published: '2021-12-10T00:40:56Z', aliases: ['CVE-2021-44228'],
        summary: 'Remote code injection in Log4j', severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' }],
        affected: [{ package: { ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '2.0-beta9' }, { fixed: '2.15.0' }] }] }],
      }));
      started = performance.now();
      const report = await importPath(db.kysely, dir, advisoryZipLimits(loadConfig({})));
      for (;;) {
        const waiting = await sql<{ n: number }>`select count(*) as n from uploads where format = 'advisories' and status in ('pending', 'processing')`.execute(db.kysely);
        if (Number(waiting.rows[0]!.n) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      result.rematch = { repos: report.rematch_queued, seconds: (performance.now() - started) / 1000 };
      await phase('re-match');
      log(`advisory import re-matching ${report.rematch_queued} repositories: ${result.rematch.seconds.toFixed(1)} s`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    result.serveRssMiB = rss.peak();
    log(`serve process peak resident memory: ${result.serveRssMiB} MiB`);
    const worst = Math.max(...result.reads.map((r) => r.p95));
    const perFiveThousand = result.rematch.repos > 0 ? result.rematch.seconds * 5000 / result.rematch.repos : NaN;
    result.verdicts = [
      `every read p95 under 300 ms with uploads running: worst ${worst.toFixed(0)} ms, target ${worst < 300 ? 'met' : 'missed'}.`,
      `re-match of 5,000 repositories under 2 minutes: ${result.rematch.repos.toLocaleString('en')} re-matched in ${result.rematch.seconds.toFixed(1)} s`
        + `${result.rematch.repos === 5000 ? '' : ` (${perFiveThousand.toFixed(0)} s for 5,000 at that rate)`}, target ${perFiveThousand < 120 ? 'met' : 'missed'}${result.rematch.repos === 5000 ? '' : ' (extrapolated)'}.`,
      `serve process under 512 MiB: peak ${result.serveRssMiB} MiB, target ${result.serveRssMiB < 512 ? 'met' : 'missed'}.`,
    ];
    return result;
  } finally {
    serve?.kill('SIGTERM');
    if (serve) await new Promise((resolve) => serve!.once('exit', resolve));
    await db.close();
    await admin(`drop database if exists ${name} with (force)`);
  }
}

/** Seeds a database of its own, kept for later runs; the seconds it took. */
async function seedDatabase(name: string, repos: number, findings: number, components: number, log: (line: string) => void): Promise<number> {
  await admin(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = openDatabase({ kind: 'postgres', url: url.toString() });
  let seeded = false;
  try {
    await db.migrate();
    const started = performance.now();
    await seed(db, repos, findings, components, log);
    seeded = true;
    return (performance.now() - started) / 1000;
  } finally {
    await db.close();
    // A half-made seed is not kept for the next run to copy.
    if (!seeded) await admin(`drop database if exists ${name} with (force)`);
  }
}

/** What a kept seed holds and how long it took to make, from the comment its run left on it. */
async function keptSeed(name: string): Promise<{ seconds: number; repos: number; findings: number }> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ comment: string | null }>(`select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1`, [name]);
    const said = /^seeded in (\d+) s: (\d+) repositories, (\d+) findings$/.exec(rows[0]?.comment ?? '');
    if (!said) throw new Error(`${name} was not left by this benchmark (no seed comment): drop it or name another`);
    return { seconds: Number(said[1]), repos: Number(said[2]), findings: Number(said[3]) };
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

async function seededIds(db: Db): Promise<Seeded> {
  const orgIds = (await db.kysely.selectFrom('orgs').select('id').orderBy('name').execute()).map((o) => o.id);
  const repoIds = (await db.kysely.selectFrom('repos').select('id').orderBy('name').execute()).map((r) => r.id);
  return { orgIds, repoIds };
}

interface Seeded {
  orgIds: string[];
  repoIds: string[];
}

/** Orgs, repositories (each scanned once: upload, ref, analysis, status), then findings and components by generate_series. */
async function seed(db: Db, repos: number, findings: number, components: number, log: (line: string) => void): Promise<Seeded> {
  const orgIds: string[] = [];
  const repoIds: string[] = [];
  for (let o = 0; o < ORGS; o++) {
    const at = now();
    const orgId = newId();
    const orgName = `portfolio-${String(o).padStart(2, '0')}`;
    await db.kysely.insertInto('orgs').values({ id: orgId, name: orgName, name_key: orgName, description: '', created_at: at, updated_at: at }).execute();
    orgIds.push(orgId);
    repoIds.push(...await seedRepos(db, orgId, Math.ceil(repos / ORGS) - (o < repos % ORGS || repos % ORGS === 0 ? 0 : 1), { scanned: true, prefix: `svc${o}` }));
  }
  log(`seeded ${repoIds.length} repositories`);
  // One row per repository, numbered, to spread generated rows over them.
  await sql`create unlogged table bench_targets as
    select (row_number() over (order by a.repository_id) - 1)::int as n, a.repository_id, a.ref_id, a.id as analysis_id, a.last_upload_id as upload_id
    from analyses a`.execute(db.kysely);
  await sql`create unique index on bench_targets (n)`.execute(db.kysely);
  const count = repoIds.length;
  // First seen yesterday: the serve process's first housekeeping round then writes every repository's
  // snapshot of yesterday, reading all the findings while the reads run, as it does after each midnight.
  const at = new Date(Date.now() - 86_400_000).toISOString();
  const BATCH = 1_000_000;
  for (let from = 0; from < findings; from += BATCH) {
    const to = Math.min(findings, from + BATCH) - 1;
    // Critical findings vary by repository (0 to 7.5% of its findings), so sorting by them means something.
    await sql`insert into findings (id, repository_id, ref_id, analysis_id, fingerprint, rule_id, rule_name, message, severity, severity_rank,
        level, file_path, start_line, end_line, state, first_upload_id, created_at, updated_at, fixed_at)
      select ${newId().slice(0, 24)}::text || lpad(to_hex(g), 12, '0'), t.repository_id, t.ref_id, t.analysis_id, 'fp-' || g,
        'bench/rule-' || (g % 200), 'Benchmark rule ' || (g % 200), 'Potential issue ' || g || ': untrusted data reaches a sensitive sink.',
        s.severity, s.rank, 'error', 'src/module-' || (g % 500) || '/file.ts', (g % 900) + 1, (g % 900) + 3,
        case when g % 10 = 3 then 'fixed' else 'open' end, t.upload_id, ${at}::timestamptz, ${at}::timestamptz,
        case when g % 10 = 3 then ${at}::timestamptz end
      from generate_series(${sql.lit(from)}::bigint, ${sql.lit(to)}::bigint) g
      join bench_targets t on t.n = g % ${sql.lit(count)}
      cross join lateral (select case
        when (g / ${sql.lit(count)}) % 40 < t.n % 4 then 'critical' when g % 20 < 5 then 'high' when g % 20 < 12 then 'medium' when g % 20 < 18 then 'low' else 'info' end as severity) sv
      cross join lateral (select sv.severity, case sv.severity when 'critical' then 4 when 'high' then 3 when 'medium' then 2 when 'low' then 1 else 0 end as rank) s`.execute(db.kysely);
    log(`  findings ${(to + 1).toLocaleString('en')}`);
  }
  const log4j = packageOfPurl(LOG4J)!.key;
  for (let from = 0; from < components; from += BATCH) {
    const to = Math.min(components, from + BATCH) - 1;
    // The first component of every other repository is log4j-core 2.14.1; the rest are npm packages.
    await sql`insert into components (id, repository_id, analysis_id, upload_id, ref, name, version, purl, type, licenses, hashes, depends_on, package_key)
      select ${newId().slice(0, 24)}::text || lpad(to_hex(g), 12, '0'), t.repository_id, t.analysis_id, t.upload_id, 'c-' || g,
        case when l.log4j then 'log4j-core' else 'bench-package-' || (g % 5000) end,
        case when l.log4j then '2.14.1' else '1.' || (g % 10) || '.0' end,
        case when l.log4j then ${LOG4J} else 'pkg:npm/bench-package-' || (g % 5000) || '@1.' || (g % 10) || '.0' end,
        'library', '[]', '[]', '[]',
        case when l.log4j then ${log4j} else 'npm|bench-package-' || (g % 5000) end
      from generate_series(${sql.lit(from)}::bigint, ${sql.lit(to)}::bigint) g
      join bench_targets t on t.n = g % ${sql.lit(count)}
      cross join lateral (select g < ${sql.lit(count)} and t.n % 2 = 0 as log4j) l`.execute(db.kysely);
    log(`  components ${(to + 1).toLocaleString('en')}`);
  }
  // The aggregates the reads use, from the rows: analyses, then refs (one analysis each), then statuses.
  await sql`update analyses a set open_critical = c.critical, open_high = c.high, open_medium = c.medium, open_low = c.low, open_info = c.info, fixed_total = c.fixed
    from (select analysis_id, count(*) filter (where state = 'open' and severity = 'critical') as critical, count(*) filter (where state = 'open' and severity = 'high') as high,
      count(*) filter (where state = 'open' and severity = 'medium') as medium, count(*) filter (where state = 'open' and severity = 'low') as low,
      count(*) filter (where state = 'open' and severity = 'info') as info, count(*) filter (where state = 'fixed') as fixed
      from findings group by analysis_id) c where c.analysis_id = a.id`.execute(db.kysely);
  await sql`update analyses a set components = c.n from (select analysis_id, count(*) as n from components group by analysis_id) c where c.analysis_id = a.id`.execute(db.kysely);
  await sql`update refs r set open_critical = a.open_critical, open_high = a.open_high, open_medium = a.open_medium, open_low = a.open_low, open_info = a.open_info,
    components = a.components, fixed_total = a.fixed_total from analyses a where a.ref_id = r.id`.execute(db.kysely);
  await sql`update repo_status s set open_critical = r.open_critical, open_high = r.open_high, open_medium = r.open_medium, open_low = r.open_low, open_info = r.open_info,
    components = r.components from refs r where r.repository_id = s.repository_id`.execute(db.kysely);
  await sql`drop table bench_targets`.execute(db.kysely);
  // What autovacuum does in the minutes after a bulk load (PostgreSQL 13 on vacuums after inserts): measured
  // without it, the reads ran beside a vacuum of ten million rows and the dead rows of the counts above.
  await sql`vacuum analyze`.execute(db.kysely);
  return { orgIds, repoIds };
}

/** The peak VmRSS of a process, sampled every 100 ms, in MiB: overall, and of each phase since the last. */
function trackRss(pid: number): { phase(name: string): number; peak(): number } {
  let peak = 0;
  let phasePeak = 0;
  const sample = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      peak = Math.max(peak, kb);
      phasePeak = Math.max(phasePeak, kb);
    } catch {
      // The process has exited.
    }
  };
  const timer = setInterval(sample, 100);
  return {
    phase() {
      sample();
      const mib = Math.round(phasePeak / 1024);
      phasePeak = 0;
      return mib;
    },
    peak() {
      sample();
      clearInterval(timer);
      return Math.round(peak / 1024);
    },
  };
}

interface ProcessMetrics {
  heapMiB: number;
  lagMaxMs: number;
  gcSeconds: number;
}

/** The serve process's own view from GET /metrics (prom-client's defaults, main thread only). */
async function processMetrics(origin: string): Promise<ProcessMetrics> {
  const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const value = (re: RegExp) => [...text.matchAll(re)].reduce((sum, m) => sum + Number(m[1]), 0);
  return {
    heapMiB: Math.round(value(/^nodejs_heap_size_used_bytes (\S+)$/gm) / 1024 / 1024),
    lagMaxMs: Math.round(value(/^nodejs_eventloop_lag_max_seconds (\S+)$/gm) * 1000),
    gcSeconds: value(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm),
  };
}

async function waitFor(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  await client.query(statement);
  await client.end();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
