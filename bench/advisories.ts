import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { sql } from 'kysely';
import { generateCycloneDx } from './generate.js';
import { timeUpload } from './ingest.js';
import { seedRepos } from './seed.js';
import { startBenchServer, trackPeakMemory } from './support.js';
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

/**
 * SQLite, one instance with its in-process worker. (1) Importing 100,000 OSV records from a zip
 * with the command's code path. (2) A 20,000-component SBOM uploaded with the advisories loaded, and
 * the matching step alone on that ref. (3) With 10^5 components stored (the SBOM in five
 * repositories), an import changing 1,000 advisories until every re-match job is complete.
 */
export async function benchAdvisories(log: (line: string) => void): Promise<AdvisoryResult[]> {
  const results: AdvisoryResult[] = [];
  const server = await startBenchServer('sqlite');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-osv-'));
  const record = (r: AdvisoryResult) => {
    results.push(r);
    log(`${r.database.padEnd(8)} ${r.measure.padEnd(58)} ${r.seconds.toFixed(2)} s${r.peakMiB === null ? '' : `  peak ${r.peakMiB} MiB`}  (${r.detail})`);
  };
  try {
    const limits = advisoryZipLimits(server.app.services.config);
    // Two zips of 50,000: fflate writes no ZIP64 directory, and a zip of more than 65,535 files needs one
    // (OSV's own exports have it, and reading it is supported).
    const all = path.join(dir, 'all');
    fs.mkdirSync(all);
    fs.writeFileSync(path.join(all, 'a.zip'), osvZip(50_000, '2024-01-01T00:00:00Z'));
    fs.writeFileSync(path.join(all, 'b.zip'), osvZip(50_000, '2024-01-01T00:00:00Z', 50_000));
    let peak = trackPeakMemory();
    let started = performance.now();
    const imported = await importPath(server.db.kysely, all, limits);
    record({ database: 'sqlite', measure: 'import 100,000 OSV records (two zips)', seconds: (performance.now() - started) / 1000, peakMiB: peak(), detail: `added ${imported.added}, rejected ${imported.rejected.length}` });

    const sbom = generateCycloneDx(20_000);
    peak = trackPeakMemory();
    const { seconds, upload } = await timeUpload(server, server.repoId, sbom);
    const counts = upload.counts as Record<string, number>;
    record({ database: 'sqlite', measure: 'CycloneDX 20,000 components, 100,000 advisories loaded', seconds, peakMiB: peak(), detail: `new findings ${counts.new}` });
    const ref = await server.db.kysely.selectFrom('refs').select('id').where('repository_id', '=', server.repoId).executeTakeFirstOrThrow();
    started = performance.now();
    const matches = await matchRef(server.db.kysely, ref.id);
    record({ database: 'sqlite', measure: 'matching step alone on that ref (lookup and version comparison, no writes)', seconds: (performance.now() - started) / 1000, peakMiB: null, detail: `${matches.analysis.findings.length} matches, ${matches.unchecked} unchecked` });

    for (const repoId of await seedRepos(server.db, server.orgId, 4)) await timeUpload(server, repoId, sbom);
    const components = await server.db.kysely.selectFrom('components').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const changed = path.join(dir, 'changed.zip');
    fs.writeFileSync(changed, osvZip(1_000, '2024-06-01T00:00:00Z'));
    started = performance.now();
    const report = await importPath(server.db.kysely, changed, limits);
    for (;;) {
      const waiting = await sql<{ n: number }>`select count(*) as n from uploads where format = 'advisories' and status in ('pending', 'processing')`.execute(server.db.kysely);
      if (Number(waiting.rows[0]!.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    record({ database: 'sqlite', measure: 'import changing 1,000 advisories, every re-match done', seconds: (performance.now() - started) / 1000, peakMiB: null, detail: `updated ${report.updated}, ${report.rematch_queued} refs re-matched, ${Number(components.n).toLocaleString('en')} components stored` });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
  return results;
}
