import { gzipSync } from 'node:zlib';
import { generateCycloneDx, generateSarif } from './generate.js';
import { postgresAvailable, startBenchServer, trackPeakMemory, type BenchServer } from './support.js';

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

/** From the first byte sent to `complete`: POST the document, then poll the upload until it is done. */
export async function timeUpload(server: Pick<BenchServer, 'origin' | 'key'>, repoId: string, body: Buffer): Promise<{ seconds: number; upload: Record<string, unknown> }> {
  const started = performance.now();
  const res = await fetch(`${server.origin}/api/v1/repos/${repoId}/upload`, {
    method: 'POST', headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/octet-stream' }, body,
  });
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const poll = await fetch(`${server.origin}/api/v1/uploads/${id}`, { headers: { authorization: `Bearer ${server.key}` } });
    const upload = (await poll.json()) as Record<string, unknown>;
    if (upload.status === 'complete' || upload.status === 'failed') {
      if (upload.status === 'failed') throw new Error(`upload failed: ${String(upload.error)}`);
      return { seconds: (performance.now() - started) / 1000, upload };
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
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
