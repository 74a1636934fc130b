import { gzipSync } from 'node:zlib';
import { generateCycloneDx, generateSarif } from './generate.js';
import { postgresAvailable, startBenchServer, timeUpload, trackPeakMemory } from './support.js';

export interface IngestResult {
  database: string;
  input: string;
  items: number;
  bytes: number;
  seconds: number;
  perSecond: number;
  peakMiB: number;
  counts: string;
}

export async function benchIngest(log: (line: string) => void): Promise<IngestResult[]> {
  const sarif = generateSarif({ results: 100_000, runs: 4 });
  const sarifChanged = generateSarif({ results: 100_000, runs: 4, changed: 0.1 });
  const sarifMoved = generateSarif({ results: 100_000, runs: 4, moved: 1 });
  const sbom = generateCycloneDx(20_000);
  const kinds: ('sqlite' | 'postgres')[] = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  const results: IngestResult[] = [];
  for (const kind of kinds) {
    const server = await startBenchServer(kind);
    try {
      const cases: [string, Buffer, number][] = [
        ['SARIF, 100,000 results in 4 runs (first upload)', sarif, 100_000],
        ['same SARIF with 10% of results changed', sarifChanged, 100_000],
        ['CycloneDX, 20,000 components', sbom, 20_000],
        ['SARIF 100,000 results, gzip', gzipSync(sarif), 100_000],
        ['same SARIF with every line moved by one', sarifMoved, 100_000],
      ];
      for (const [input, body, items] of cases) {
        const peak = trackPeakMemory();
        const { seconds, upload } = await timeUpload(server, server.repoId, body);
        const counts = upload.counts as Record<string, number>;
        const result = {
          database: kind, input, items, bytes: body.length, seconds, perSecond: Math.round(items / seconds), peakMiB: peak(),
          counts: `new ${counts.new}, fixed ${counts.fixed}, reopened ${counts.reopened}, unchanged ${counts.unchanged}, components ${counts.components}`,
        };
        results.push(result);
        log(`${kind.padEnd(8)} ${input.padEnd(50)} ${seconds.toFixed(2)} s  ${result.perSecond.toLocaleString('en')}/s  peak ${result.peakMiB} MiB  (${result.counts})`);
      }
    } finally {
      await server.close();
    }
  }
  return results;
}
