import { gzipSync } from 'node:zlib';
import { generateCycloneDx, generateSarif } from './generate.js';
import { postgresAvailable, startBenchServer, trackPeakMemory } from './support.js';
import { timeUpload } from './client.js';
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
  const sarif = generateSarif({ results: 100_000, runs: 4 });
  const cases: [string, Buffer, number][] = [
    ['SARIF, 100,000 results in 4 runs (first upload)', sarif, 100_000],
    ['same SARIF with 10% of results changed', generateSarif({ results: 100_000, runs: 4, changed: 0.1 }), 100_000],
    ['CycloneDX, 20,000 components', generateCycloneDx(20_000), 20_000],
    ['SARIF 100,000 results, gzip', gzipSync(sarif), 100_000],
    ['same SARIF with every line moved by one', generateSarif({ results: 100_000, runs: 4, moved: 1 }), 100_000],
  ];
  const kinds: ('sqlite' | 'postgres')[] = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  const results: IngestResult[] = [];
  for (const kind of kinds) {
    const server = await startBenchServer(kind);
    try {
      const rounds: { seconds: number; peakMiB: number; counts: string }[][] = cases.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        const [repoId] = round === 0 ? [server.repoId] : await seedRepos(server.db, server.orgId, 1, { prefix: `ingest-round-${round + 1}` });
        for (const [index, [input, body]] of cases.entries()) {
          const peak = trackPeakMemory();
          const { seconds, upload } = await timeUpload(server, repoId!, body);
          const counts = upload.counts as Record<string, number>;
          const run = {
            seconds, peakMiB: peak(),
            counts: `new ${counts.new}, fixed ${counts.fixed}, reopened ${counts.reopened}, unchanged ${counts.unchanged}, components ${counts.components}`,
          };
          rounds[index]!.push(run);
          log(`${kind.padEnd(8)} round ${round + 1}: ${input.padEnd(50)} ${seconds.toFixed(2)} s  peak ${run.peakMiB} MiB  (${run.counts})`);
        }
      }
      for (const [index, [input, body, items]] of cases.entries()) {
        const runs = rounds[index]!;
        // Every round starts from an empty repository: a round that counted differently is a bug, not noise.
        if (new Set(runs.map((r) => r.counts)).size > 1) throw new Error(`${input}: the rounds counted differently: ${runs.map((r) => r.counts).join('; ')}`);
        const seconds = [...runs.map((r) => r.seconds)].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
        const result: IngestResult = {
          database: kind, input, items, bytes: body.length, seconds, perSecond: Math.round(items / seconds),
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
