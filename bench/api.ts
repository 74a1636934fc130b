import autocannon from 'autocannon';
import Fastify from 'fastify';
import { postgresAvailable, startBenchServer, type BenchServer } from './support.js';
import { registerTurnWrites } from '../src/http/connection.js';
import { seedAnalysis, seedFindings, seedRepos } from './seed.js';

/** One load case: what autocannon measured, and what the target says about it. */
export interface LoadResult {
  database: string;
  request: string;
  connections: number;
  seconds: number;
  /** 2xx responses per second. */
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Non-2xx answers, connection errors and timeouts: all must be 0. */
  errors: number;
  /** req/s of each run when the case is the median of several (the other figures are the median run's). */
  runs?: number[];
}

export interface LoadOptions {
  origin: string;
  /** One path, or several that each connection cycles through. */
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** Requests per second across the connections (autocannon's overallRate); unset, as fast as answered. */
  rate?: number;
}

/**
 * Runs autocannon in a worker thread, so that the load generator does not share the server's event
 * loop (the server under test runs in this process). Latency resolution is 1 ms (autocannon's histogram).
 */
export async function runLoad(options: LoadOptions): Promise<Omit<LoadResult, 'database' | 'request'>> {
  const result = await autocannon({
    url: options.origin,
    connections: options.connections,
    duration: options.seconds,
    workers: 1,
    headers: options.headers ?? {},
    requests: options.paths.map((path) => ({ method: 'GET', path })),
    ...(options.rate ? { overallRate: options.rate } : {}),
  });
  const ok = result['2xx'];
  return {
    connections: options.connections,
    seconds: result.duration,
    rps: Math.round(ok / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * A `read` API key of the dev user (an administrator and owner of the bench org), created the way a
 * user would: dev-login for a session cookie, then POST /api/v1/apikeys.
 */
export async function createReadKey(server: BenchServer): Promise<string> {
  const login = await fetch(`${server.origin}/auth/dev-login`, { method: 'POST', headers: { origin: server.origin } });
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const res = await fetch(`${server.origin}/api/v1/apikeys`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', origin: server.origin },
    body: JSON.stringify({ name: 'bench-read', scopes: ['read'] }),
  });
  if (res.status !== 201) throw new Error(`creating a read key answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/** GETs a path once and checks it answers 200 with what the case expects, before loading it. */
export async function checkOnce(origin: string, path: string, key: string, check: (body: unknown, res: Response) => boolean): Promise<void> {
  const res = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body: unknown = await res.json();
  if (res.status !== 200 || !check(body, res)) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
}

export const REPOS = 10_000;
const CONNECTIONS = 64;
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
/** The status read, which a target judges, is run this many times and its median run kept: one run moved by a third on a shared host. */
const STATUS_RUNS = 3;

export interface ApiResults {
  ceiling: LoadResult;
  cases: LoadResult[];
}

/**
 * Read throughput at 64 connections, authenticated by a `read` API key: a repository's status and
 * the first page of 100 of an org's 10,000 repositories, on SQLite and PostgreSQL, and a bare Fastify
 * route in this same process as the ceiling of this machine.
 */
export async function benchApi(log: (line: string) => void): Promise<ApiResults> {
  const line = (r: LoadResult) => log(`${r.database.padEnd(8)} ${r.request.padEnd(42)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}${r.runs ? `  (median of ${r.runs.join(', ')} req/s)` : ''}`);

  const first = await measureCeilings(line);
  const kinds: ('sqlite' | 'postgres')[] = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  const cases: LoadResult[] = [];
  for (const kind of kinds) {
    const server = await startBenchServer(kind);
    try {
      const started = performance.now();
      await seedRepos(server.db, server.orgId, REPOS, { scanned: true });
      // The status repository looks like a scanned one: two tools, a few thousand findings.
      for (const tool of ['BenchScanner', 'OtherScanner']) await seedFindings(server.db, await seedAnalysis(server.db, server.repoId, tool), 2_000);
      log(`${kind.padEnd(8)} seeded ${REPOS.toLocaleString('en')} scanned repositories and 4,000 findings in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const key = await createReadKey(server);
      const headers = { authorization: `Bearer ${key}` };
      const status = `/api/v1/repos/${server.repoId}/status`;
      const list = `/api/v1/orgs/${server.orgId}/repos?per_page=100`;
      await checkOnce(server.origin, status, key, (b) => (b as { state?: string }).state === 'complete');
      await checkOnce(server.origin, list, key, (b, res) => (b as unknown[]).length === 100 && res.headers.get('x-total-count') === String(REPOS + 1));
      for (const [request, path, repeats] of [['GET /repos/{id}/status', status, STATUS_RUNS], ['GET /orgs/{id}/repos?per_page=100', list, 1]] as const) {
        await runLoad({ origin: server.origin, paths: [path], headers, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
        const runs: Omit<LoadResult, 'database' | 'request'>[] = [];
        for (let run = 0; run < repeats; run++) runs.push(await runLoad({ origin: server.origin, paths: [path], headers, connections: CONNECTIONS, seconds: SECONDS }));
        const median = [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!;
        const result: LoadResult = { database: kind, request, ...median, ...(runs.length > 1 ? { runs: runs.map((r) => r.rps) } : {}) };
        cases.push(result);
        line(result);
      }
    } finally {
      await server.close();
    }
  }
  // Measured again at the end: on a shared machine the better of the two is the fairer ceiling.
  const second = await measureCeilings(line);
  return { ceiling: second.rps > first.rps ? second : first, cases };
}

/**
 * The bare route as it is, and with the service's own way of writing responses (at the end of the
 * event loop's turn, `registerTurnWrites`), which the service's figures have: the better is this
 * machine's ceiling, so the way of writing never counts for the service alone.
 */
async function measureCeilings(line: (r: LoadResult) => void): Promise<LoadResult> {
  const plain = await measureCeiling(false);
  line(plain);
  const turnWrites = await measureCeiling(true);
  line(turnWrites);
  return turnWrites.rps > plain.rps ? turnWrites : plain;
}

/** A bare Fastify route in this same process, under the same load: what this machine can do at best. */
async function measureCeiling(turnWrites: boolean): Promise<LoadResult> {
  const bare = Fastify({ logger: false });
  if (turnWrites) registerTurnWrites(bare);
  bare.get('/', async () => ({ ok: true }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  try {
    const address = bare.server.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await runLoad({ origin, paths: ['/'], connections: CONNECTIONS, seconds: WARMUP_SECONDS });
    const request = `bare Fastify GET / (ceiling${turnWrites ? ', writes at the turn\'s end' : ''})`;
    return { database: '-', request, ...(await runLoad({ origin, paths: ['/'], connections: CONNECTIONS, seconds: SECONDS })) };
  } finally {
    await bare.close();
  }
}

/** Status reads: at least 20% of the ceiling's req/s on SQLite and 10% on PostgreSQL, p99 under 25 ms. */
export function apiTargets({ ceiling, cases }: ApiResults): string[] {
  return cases.filter((c) => c.request.includes('status')).map((c) => {
    const share = c.rps / ceiling.rps;
    const met = share >= (c.database === 'sqlite' ? 0.2 : 0.1) && c.p99 < 25 && c.errors === 0;
    return `${c.database}: status read at ${(share * 100).toFixed(0)}% of the ceiling, p99 ${c.p99} ms${c.errors ? `, ${c.errors} errors` : ''}: target ${met ? 'met' : 'missed'}.`;
  });
}
