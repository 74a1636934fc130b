/**
 * Benchmark inputs, made up but shaped like real scanner output: a multi-run SARIF with rules,
 * locations and partialFingerprints, and a CycloneDX SBOM with purls, licenses, hashes and a graph.
 */
const LEVELS = ['error', 'warning', 'note'] as const;

export interface SarifOptions {
  results: number;
  runs: number;
  /** The share of results replaced by new ones (a re-scan after some fixes and some new code). */
  changed?: number;
  /** Lines every result moves down by (a line added at the top of each file: code that moved). */
  moved?: number;
}

export function generateSarif({ results, runs, changed = 0, moved = 0 }: SarifOptions): Buffer {
  const perRun = Math.ceil(results / runs);
  const replaceEvery = changed > 0 ? Math.round(1 / changed) : 0;
  const out = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: Array.from({ length: runs }, (_, r) => {
      const rules = Array.from({ length: 200 }, (_, i) => ({
        id: `bench/rule-${r}-${i}`,
        shortDescription: { text: `Benchmark rule ${i}` },
        properties: { 'security-severity': String((i % 100) / 10) },
      }));
      return {
        tool: { driver: { name: `BenchScanner-${r}`, semanticVersion: '1.0.0', rules } },
        results: Array.from({ length: Math.min(perRun, results - r * perRun) }, (_, i) => {
          const generation = replaceEvery && i % replaceEvery === 0 ? 'b' : 'a';
          return {
            ruleId: `bench/rule-${r}-${i % 200}`,
            ruleIndex: i % 200,
            level: LEVELS[i % 3],
            message: { text: `Potential issue ${i} in module ${i % 500}: untrusted data reaches a sensitive sink.` },
            locations: [{ physicalLocation: { artifactLocation: { uri: `src/module-${i % 500}/file-${i % 37}.ts` }, region: { startLine: (i % 900) + 1 + moved, endLine: (i % 900) + 3 + moved } } }],
            partialFingerprints: { primaryLocationLineHash: `${generation}${r}-${i.toString(16)}` },
          };
        }),
      };
    }),
  };
  return Buffer.from(JSON.stringify(out));
}

/**
 * `graph`: the BOM also names its root (metadata.component) and a graph as npm trees have it: the
 * root depends on the first 50 packages, each package on two further ones (a tree) and on the next
 * (shared dependencies), and the last on the first (a cycle): about 40,000 edges for 20,000.
 */
export function generateCycloneDx(components: number, { graph = false } = {}): Buffer {
  const list = Array.from({ length: components }, (_, i) => ({
    type: 'library',
    'bom-ref': `pkg:npm/bench-package-${i}@1.${i % 10}.0`,
    name: `bench-package-${i}`,
    version: `1.${i % 10}.0`,
    purl: `pkg:npm/bench-package-${i}@1.${i % 10}.0`,
    licenses: [{ license: { id: i % 2 ? 'MIT' : 'Apache-2.0' } }],
    hashes: [{ alg: 'SHA-256', content: (i * 2654435761 % 2 ** 32).toString(16).padStart(64, '0') }],
  }));
  const bom = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      tools: { components: [{ type: 'application', name: 'bench-sbom', version: '1.0.0' }] },
      ...(graph ? { component: { type: 'application', name: 'bench-app', version: '1.0.0', 'bom-ref': 'bench-app@1.0.0' } } : {}),
    },
    components: list,
    dependencies: graph
      ? [
        { ref: 'bench-app@1.0.0', dependsOn: list.slice(0, 50).map((c) => c['bom-ref']) },
        ...list.map((c, i) => ({ ref: c['bom-ref'], dependsOn: [2 * i + 51, 2 * i + 52, (i + 1) % list.length].filter((j) => j < list.length).map((j) => list[j]!['bom-ref']) })),
      ]
      : list.map((c, i) => ({ ref: c['bom-ref'], dependsOn: i + 1 < list.length ? [list[i + 1]!['bom-ref']] : [] })),
  };
  return Buffer.from(JSON.stringify(bom));
}
