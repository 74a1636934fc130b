import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { sql } from 'kysely';
import { generateCycloneDx } from './generate.js';
import { seedRepos } from './seed.js';
import { postgresAvailable, startBenchServer, trackPeakMemory, type BenchServer } from './support.js';
import { timeUpload } from './client.js';
import { importPath } from '../src/advisories/import-path.js';
import { matchRef } from '../src/scans/advisory-matching.js';
import { advisoryZipLimits } from '../src/services.js';

export interface AdvisoryResult {
  database: string;
  measure: string;
  seconds: number;
  peakMiB: number | null;
  detail: string;
}

/**
 * OSV records as osv.dev writes them for npm: advisory i affects bench-package-i (the packages
 * generateCycloneDx names) below 1.5.0, so a 20,000-component SBOM meets 20,000 advisories and
 * half its versions are affected.
 */
function osvZip(count: number, modified: string, from = 0): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (let i = from; i < from + count; i++) {
    const id = `GHSA-bench-${String(i).padStart(6, '0')}`;
    files[`${id}.json`] = strToU8(JSON.stringify({
      schema_version: '1.6.0', id, modified, published: '2024-01-01T00:00:00Z', aliases: [`CVE-2099-${100000 + i}`],
      summary: `Bench advisory ${i}`, severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
      affected: [{ package: { ecosystem: 'npm', name: `bench-package-${i}`, purl: `pkg:npm/bench-package-${i}` }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.5.0' }] }] }],
    }));
  }
  return zipSync(files, { level: 1 });
}

export interface AdvisoryBench {
  rows: AdvisoryResult[];
  /** Each target, and whether it is met, per database. */
  verdicts: string[];
}

/**
 * Per database, one instance with its ingest thread. (1) Importing 100,000 OSV records from a
 * zip with the command's code path. (2) A 20,000-component SBOM uploaded before the import (no
 * advisories: the baseline) and after it, each into repositories of their own, three times each
 * (one upload of about a second moved by a third between runs on a busy host), the same SBOM again
 * into the matched ones, and the matching step alone on one of those refs; the difference of the
 * first two medians is what matching adds. (3) With the SBOM in those six repositories (1.2 x 10^5
 * components), an import changing 1,000 advisories until every re-match job is complete.
 */
export async function benchAdvisories(log: (line: string) => void): Promise<AdvisoryBench> {
  const out: AdvisoryBench = { rows: [], verdicts: [] };
  for (const kind of (await postgresAvailable()) ? ['sqlite', 'postgres'] as const : ['sqlite'] as const) {
    await benchOn(kind, log, out);
  }
  return out;
}

async function benchOn(database: 'sqlite' | 'postgres', log: (line: string) => void, out: AdvisoryBench): Promise<void> {
  const server = await startBenchServer(database);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-osv-'));
  const record = (r: Omit<AdvisoryResult, 'database'>) => {
    out.rows.push({ database, ...r });
    log(`${database.padEnd(8)} ${r.measure.padEnd(58)} ${r.seconds.toFixed(2)} s${r.peakMiB === null ? '' : `  peak ${r.peakMiB} MiB`}  (${r.detail})`);
    return r.seconds;
  };
  const verdict = (what: string, value: string, met: boolean) => out.verdicts.push(`- ${database}: ${what} ${value}: target ${met ? 'met' : 'missed'}.`);
  try {
    const limits = advisoryZipLimits(server.app.services.config);
    const sbom = generateCycloneDx(20_000);
    const repos = await seedRepos(server.db, server.orgId, 2 * SAMPLES);
    let peak = trackPeakMemory();
    const baselines: number[] = [];
    for (const repoId of repos.slice(0, SAMPLES)) baselines.push((await timeUpload(server, repoId, sbom)).seconds);
    const baseline = median(baselines);
    record({ measure: 'CycloneDX 20,000 components, no advisories loaded', seconds: baseline, peakMiB: peak(), detail: `baseline; median of ${listed(baselines)}` });

    // Two zips of 50,000: fflate writes no ZIP64 directory, and a zip of more than 65,535 files needs one
    // (OSV's own exports have it, and reading it is supported).
    const all = path.join(dir, 'all');
    fs.mkdirSync(all);
    fs.writeFileSync(path.join(all, 'a.zip'), osvZip(50_000, '2024-01-01T00:00:00Z'));
    fs.writeFileSync(path.join(all, 'b.zip'), osvZip(50_000, '2024-01-01T00:00:00Z', 50_000));
    peak = trackPeakMemory();
    let started = performance.now();
    const imported = await importPath(server.db.kysely, all, limits);
    const importPeak = peak();
    const importSeconds = record({ measure: 'import 100,000 OSV records (two zips)', seconds: (performance.now() - started) / 1000, peakMiB: importPeak, detail: `added ${imported.added}, rejected ${imported.rejected.length}` });
    verdict('import of 100,000 records', `${importSeconds.toFixed(1)} s, peak ${importPeak} MiB`, importSeconds < 60 && importPeak < 1024);

    // The baselines' repositories are re-matched in the background after the import; let that finish first.
    await rematchesDone(server);
    peak = trackPeakMemory();
    const matched: number[] = [];
    const written = new Set<number>();
    for (const repoId of repos.slice(SAMPLES)) {
      const { seconds, upload } = await timeUpload(server, repoId, sbom);
      matched.push(seconds);
      written.add((upload.counts as Record<string, number>).new!);
    }
    const withAdvisories = median(matched);
    record({ measure: 'CycloneDX 20,000 components, 100,000 advisories loaded', seconds: withAdvisories, peakMiB: peak(), detail: `new findings ${[...written].join(', ')}; median of ${listed(matched)}` });
    verdict('matching adds', `${(withAdvisories - baseline).toFixed(2)} s to the SBOM's ingest (medians; ${[...written].join(', ')} findings written)`, withAdvisories - baseline < 0.5);
    // What most CI runs send: the same dependencies again. Their matches stand (scans/ingest.ts, keptMatches).
    peak = trackPeakMemory();
    const unchanged: number[] = [];
    for (const repoId of repos.slice(SAMPLES)) unchanged.push((await timeUpload(server, repoId, sbom)).seconds);
    record({ measure: 'the same CycloneDX again, unchanged, 100,000 advisories loaded', seconds: median(unchanged), peakMiB: peak(), detail: `median of ${listed(unchanged)}` });
    const ref = await server.db.kysely.selectFrom('refs').select('id').where('repository_id', '=', repos[SAMPLES]!).executeTakeFirstOrThrow();
    started = performance.now();
    const matches = await matchRef(server.db.kysely, ref.id);
    record({ measure: 'matching step alone on that ref (lookup and version comparison, no writes)', seconds: (performance.now() - started) / 1000, peakMiB: null, detail: `${matches.analysis.findings.length} matches, ${matches.unchecked} unchecked` });

    const components = await server.db.kysely.selectFrom('components').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const changed = path.join(dir, 'changed.zip');
    fs.writeFileSync(changed, osvZip(1_000, '2024-06-01T00:00:00Z'));
    started = performance.now();
    const report = await importPath(server.db.kysely, changed, limits);
    await rematchesDone(server);
    const rematch = record({ measure: 'import changing 1,000 advisories, every re-match done', seconds: (performance.now() - started) / 1000, peakMiB: null, detail: `updated ${report.updated}, ${report.rematch_queued} refs re-matched, ${Number(components.n).toLocaleString('en')} components stored` });
    verdict('re-match after changing 1,000 advisories', `${rematch.toFixed(1)} s`, rematch < 10);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
}

/** Uploads timed per side of the matching measure. */
const SAMPLES = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const listed = (values: number[]) => values.map((v) => `${v.toFixed(2)}`).join(', ') + ' s';

async function rematchesDone(server: BenchServer): Promise<void> {
  for (;;) {
    const waiting = await sql<{ n: number }>`select count(*) as n from uploads where format = 'advisories' and status in ('pending', 'processing')`.execute(server.db.kysely);
    if (Number(waiting.rows[0]!.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
