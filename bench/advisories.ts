import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { sql } from 'kysely';
import { generateCycloneDx } from './generate.js';
import { seedRepos } from './seed.js';
import { postgresAvailable, startBenchServer, timeUpload, trackPeakMemory, type BenchServer } from './support.js';
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
 * advisories: the baseline) and again after it into another repository, and the matching step alone
 * on that ref; the difference is what matching adds. (3) With 10^5 components stored (the SBOM in
 * five repositories), an import changing 1,000 advisories until every re-match job is complete.
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
    // Five repositories hold the SBOM by the re-match measure: 10^5 components.
    const [baselineRepo, ...more] = await seedRepos(server.db, server.orgId, 4);
    let peak = trackPeakMemory();
    const baseline = (await timeUpload(server, baselineRepo!, sbom)).seconds;
    record({ measure: 'CycloneDX 20,000 components, no advisories loaded', seconds: baseline, peakMiB: peak(), detail: 'baseline' });

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

    // The baseline's repository is re-matched in the background after the import; let it finish first.
    await rematchesDone(server);
    peak = trackPeakMemory();
    const { seconds, upload } = await timeUpload(server, server.repoId, sbom);
    const counts = upload.counts as Record<string, number>;
    record({ measure: 'CycloneDX 20,000 components, 100,000 advisories loaded', seconds, peakMiB: peak(), detail: `new findings ${counts.new}` });
    verdict('matching adds', `${(seconds - baseline).toFixed(2)} s to the SBOM's ingest (${counts.new} findings written)`, seconds - baseline < 0.5);
    const ref = await server.db.kysely.selectFrom('refs').select('id').where('repository_id', '=', server.repoId).executeTakeFirstOrThrow();
    started = performance.now();
    const matches = await matchRef(server.db.kysely, ref.id);
    record({ measure: 'matching step alone on that ref (lookup and version comparison, no writes)', seconds: (performance.now() - started) / 1000, peakMiB: null, detail: `${matches.analysis.findings.length} matches, ${matches.unchecked} unchecked` });

    for (const repoId of more) await timeUpload(server, repoId, sbom);
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

async function rematchesDone(server: BenchServer): Promise<void> {
  for (;;) {
    const waiting = await sql<{ n: number }>`select count(*) as n from uploads where format = 'advisories' and status in ('pending', 'processing')`.execute(server.db.kysely);
    if (Number(waiting.rows[0]!.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
