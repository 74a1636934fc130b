import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresAvailable, startBenchServer, trackPeakMemory } from './support.js';
import { timeUploadOfFile } from './client.js';
import { writeIngestDocuments, type IngestDocument } from './ingest-documents.js';
import { seedRepos } from './seed.js';

export interface IngestResult {
  database: string;
  input: string;
  items: number;
  bytes: number;
  /** The median of the rounds. */
  seconds: number;
  perSecond: number;
  /** The highest of the rounds. */
  peakMiB: number;
  counts: string;
  /** Each round's time, in the order run. */
  runs: number[];
}

/**
 * The cases run in order into one repository, as a repository's uploads would come; the whole
 * sequence runs this many times, each into a repository of its own on the same server. One round
 * moved by a third from the next on a shared host, so the table keeps each case's median.
 */
const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 3);

export async function benchIngest(log: (line: string) => void): Promise<IngestResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-bench-ingest-'));
  try {
    return await benchCases(writeIngestDocuments(dir), log);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchCases(cases: IngestDocument[], log: (line: string) => void): Promise<IngestResult[]> {
  const kinds: ('sqlite' | 'postgres')[] = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  const results: IngestResult[] = [];
  for (const kind of kinds) {
    const server = await startBenchServer(kind);
    try {
      const rounds: { seconds: number; peakMiB: number; counts: string }[][] = cases.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        const [repoId] = round === 0 ? [server.repoId] : await seedRepos(server.db, server.orgId, 1, { prefix: `ingest-round-${round + 1}` });
        for (const [index, { input, file }] of cases.entries()) {
          const peak = trackPeakMemory();
          const { seconds, upload } = await timeUploadOfFile(server, repoId!, file);
          const counts = upload.counts as Record<string, number>;
          const run = {
            seconds, peakMiB: peak(),
            counts: `new ${counts.new}, fixed ${counts.fixed}, reopened ${counts.reopened}, unchanged ${counts.unchanged}, components ${counts.components}`,
          };
          rounds[index]!.push(run);
          log(`${kind.padEnd(8)} round ${round + 1}: ${input.padEnd(50)} ${seconds.toFixed(2)} s  peak ${run.peakMiB} MiB  (${run.counts})`);
        }
      }
      for (const [index, { input, items, bytes }] of cases.entries()) {
        const runs = rounds[index]!;
        // Every round starts from an empty repository: a round that counted differently is a bug, not noise.
        if (new Set(runs.map((r) => r.counts)).size > 1) throw new Error(`${input}: the rounds counted differently: ${runs.map((r) => r.counts).join('; ')}`);
        const seconds = [...runs.map((r) => r.seconds)].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
        const result: IngestResult = {
          database: kind, input, items, bytes, seconds, perSecond: Math.round(items / seconds),
          peakMiB: Math.max(...runs.map((r) => r.peakMiB)), counts: runs[0]!.counts, runs: runs.map((r) => r.seconds),
        };
        results.push(result);
        log(`${kind.padEnd(8)} ${input.padEnd(50)} ${seconds.toFixed(2)} s  ${result.perSecond.toLocaleString('en')}/s  peak ${result.peakMiB} MiB  (median of ${result.runs.map((s) => s.toFixed(2)).join(', ')} s)`);
      }
    } finally {
      await server.close();
    }
  }
  return results;
}
