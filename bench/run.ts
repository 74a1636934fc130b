import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { benchIngest, type IngestResult } from './ingest.js';

/**
 * `npm run bench`: measures and prints, then writes BENCHMARKS.md with the date, commit and machine.
 * `npm run bench -- ingest` runs one part.
 */
const parts = process.argv.slice(2);
const wanted = (name: string) => parts.length === 0 || parts.includes(name);
const log = (line: string) => process.stdout.write(`${line}\n`);

const sections: string[] = [];
if (wanted('ingest')) {
  log('== ingest: from the first byte sent to complete');
  sections.push(ingestSection(await benchIngest(log)));
}
if (sections.length) {
  const file = path.resolve(import.meta.dirname, '../BENCHMARKS.md');
  fs.writeFileSync(file, `${header()}\n${sections.join('\n')}`);
  log(`written to ${path.relative(process.cwd(), file)}`);
}
process.exit(0);

function header(): string {
  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return [
    '# Benchmarks',
    '',
    'Written by `npm run bench`; rerun it to refresh. Figures depend on the machine below.',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Commit: ${commit}`,
    `- Machine: ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, ${os.platform()} ${os.release()}, Node.js ${process.version}`,
    '',
  ].join('\n');
}

function ingestSection(results: IngestResult[]): string {
  const rows = results.map((r) => `| ${r.database} | ${r.input} | ${(r.bytes / 1024 / 1024).toFixed(1)} MiB | ${r.seconds.toFixed(2)} s | ${r.perSecond.toLocaleString('en')} | ${r.peakMiB} MiB | ${r.counts} |`);
  return [
    '## Ingest',
    '',
    'From the first byte of `POST /api/v1/repos/{id}/upload` to the upload reading `complete` (polled every 10 ms),',
    'on a real server with its in-process worker. Targets: 100,000 SARIF results under 2 s on SQLite and 4 s on',
    'PostgreSQL, 20,000 components under 1 s, peak memory under 1 GiB. Peers for comparison: DefectDojo imports',
    'about 50 findings/s; Dependency-Track processed 5,915 components in about 1.7 s.',
    '',
    '| Database | Input | Size | Time | Items/s | Peak RSS | Result |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
