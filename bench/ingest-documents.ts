import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { generateCycloneDx, generateSarif } from './generate.js';

/** The ingest benchmark's cases, in the order they run into one repository. */
const CASES: { input: string; items: number; make: () => Buffer }[] = [
  { input: 'SARIF, 100,000 results in 4 runs (first upload)', items: 100_000, make: () => generateSarif({ results: 100_000, runs: 4 }) },
  { input: 'same SARIF with 10% of results changed', items: 100_000, make: () => generateSarif({ results: 100_000, runs: 4, changed: 0.1 }) },
  { input: 'CycloneDX, 20,000 components', items: 20_000, make: () => generateCycloneDx(20_000) },
  { input: 'same CycloneDX again, unchanged', items: 20_000, make: () => generateCycloneDx(20_000) },
  // Every row changes (its direct flag and edges), so it compares with the first CycloneDX case: the graph's own cost.
  { input: 'CycloneDX, 20,000 components with a root and 40,000 edges', items: 20_000, make: () => generateCycloneDx(20_000, { graph: true }) },
  { input: 'SARIF 100,000 results, gzip', items: 100_000, make: () => gzipSync(generateSarif({ results: 100_000, runs: 4 })) },
  { input: 'same SARIF with every line moved by one', items: 100_000, make: () => generateSarif({ results: 100_000, runs: 4, moved: 1 }) },
];

export interface IngestDocument {
  input: string;
  items: number;
  file: string;
  bytes: number;
}

const SELF = fileURLToPath(import.meta.url);

/**
 * Writes the cases' documents into `dir`, from a process of its own (this file, run as a script):
 * the benchmark's process, whose peak memory is measured, never holds them. It held all of them
 * (111 MiB, and the garbage of making them) until session 31.
 */
export function writeIngestDocuments(dir: string): IngestDocument[] {
  execFileSync(process.execPath, ['--import', 'tsx', SELF, dir], { cwd: path.dirname(path.dirname(SELF)), stdio: 'inherit' });
  return CASES.map(({ input, items }, index) => {
    const file = path.join(dir, `case-${index}`);
    return { input, items, file, bytes: fs.statSync(file).size };
  });
}

if (process.argv[1] === SELF) {
  for (const [index, { make }] of CASES.entries()) fs.writeFileSync(path.join(process.argv[2]!, `case-${index}`), make());
}
