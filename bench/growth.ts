import { postgresAvailable, startBenchServer } from './support.js';
import { createReadKey } from './api.js';
import { seedAnalysis, seedFindings } from './seed.js';

export const GROWTH_SIZES = [10_000, 100_000, 1_000_000];
const PER_PAGE = 50;
/** Each case: at most this many timed requests, for about this long, and at least MIN_SAMPLES. */
const MAX_SAMPLES = 200;
const MIN_SAMPLES = 20;
const CASE_MS = 4000;
const WARMUP = 5;

export interface Latency {
  p50: number;
  p99: number;
  samples: number;
}

export interface GrowthRow {
  database: string;
  findings: number;
  seedSeconds: number;
  status: Latency;
  page1: Latency;
  page10: Latency;
}

/**
 * Sequential timed GETs (one at a time, so each figure is the latency of one request on an idle
 * server, client included): WARMUP untimed, then up to MAX_SAMPLES timed within about CASE_MS.
 */
async function timeGets(url: string, key: string, check: (body: unknown, res: Response) => boolean): Promise<Latency> {
  const get = async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body: unknown = await res.json();
    if (res.status !== 200 || !check(body, res)) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
  };
  for (let i = 0; i < WARMUP; i++) await get();
  const times: number[] = [];
  const started = performance.now();
  while (times.length < MAX_SAMPLES && (times.length < MIN_SAMPLES || performance.now() - started < CASE_MS)) {
    const t = performance.now();
    await get();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!;
  return { p50: round(at(0.5)), p99: round(at(0.99)), samples: times.length };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Status read and findings pages (first and 10th, 50 per page) of one repository whose analysis
 * holds 10^4, 10^5 and 10^6 findings (90% open), seeded straight into the database with valid
 * aggregates, on SQLite and PostgreSQL. BENCH_GROWTH_MAX lowers the largest size.
 */
export async function benchGrowth(log: (line: string) => void): Promise<GrowthRow[]> {
  const max = Number(process.env.BENCH_GROWTH_MAX ?? GROWTH_SIZES.at(-1));
  const sizes = GROWTH_SIZES.filter((n) => n <= max);
  const kinds: ('sqlite' | 'postgres')[] = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  const rows: GrowthRow[] = [];
  const fmt = (l: Latency) => `p50 ${l.p50.toFixed(2)} / p99 ${l.p99.toFixed(2)} ms (${l.samples})`;
  for (const kind of kinds) {
    const server = await startBenchServer(kind);
    try {
      const key = await createReadKey(server);
      const analysis = await seedAnalysis(server.db, server.repoId);
      const base = `${server.origin}/api/v1/repos/${server.repoId}`;
      for (const findings of sizes) {
        const started = performance.now();
        await seedFindings(server.db, analysis, findings);
        const seedSeconds = (performance.now() - started) / 1000;
        const open = String(findings * 0.9);
        const page = (body: unknown, res: Response) => (body as unknown[]).length === PER_PAGE && res.headers.get('x-total-count') === open;
        const row: GrowthRow = {
          database: kind, findings, seedSeconds,
          status: await timeGets(`${base}/status`, key, (b) => String((b as { findings: { open: number } }).findings.open) === open),
          page1: await timeGets(`${base}/findings?per_page=${PER_PAGE}`, key, page),
          page10: await timeGets(`${base}/findings?per_page=${PER_PAGE}&page=10`, key, page),
        };
        rows.push(row);
        log(`${kind.padEnd(8)} ${findings.toLocaleString('en').padStart(9)} findings (seeded in ${seedSeconds.toFixed(1)} s)  status ${fmt(row.status)}  page 1 ${fmt(row.page1)}  page 10 ${fmt(row.page10)}`);
      }
    } finally {
      await server.close();
    }
  }
  return rows;
}

/**
 * Against the smallest size: the status read may not grow (p50 within noise: 25% + 0.5 ms), a
 * findings page may grow by at most ln(n)/ln(n0) (same noise allowance).
 */
export function growthVerdicts(rows: GrowthRow[]): string[] {
  const out: string[] = [];
  for (const database of [...new Set(rows.map((r) => r.database))]) {
    const mine = rows.filter((r) => r.database === database);
    const first = mine[0];
    if (!first || mine.length < 2) continue;
    const allowed = (base: number, factor: number) => base * factor * 1.25 + 0.5;
    const check = (name: string, pick: (r: GrowthRow) => Latency, logFactor: boolean) => {
      const worst = mine.slice(1).map((r) => {
        const factor = logFactor ? Math.log(r.findings) / Math.log(first.findings) : 1;
        return { r, ok: pick(r).p50 <= allowed(pick(first).p50, factor), ratio: pick(r).p50 / pick(first).p50, factor };
      });
      const last = worst.at(-1)!;
      const ok = worst.every((w) => w.ok);
      const growth = `×${last.ratio.toFixed(2)} from ${first.findings.toLocaleString('en')} to ${last.r.findings.toLocaleString('en')} findings`;
      const bound = logFactor ? `log n allows ×${last.factor.toFixed(2)}` : 'flat allowed';
      return `${name} p50 ${growth} (${bound}): ${ok ? 'met' : 'missed'}`;
    };
    out.push(`${database}: ${[
      check('status', (r) => r.status, false),
      check('findings page 1', (r) => r.page1, true),
      check('findings page 10', (r) => r.page10, true),
    ].join('; ')}.`);
  }
  return out;
}
