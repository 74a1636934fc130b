/** A small SARIF 2.1.0 log: one run of one tool with the given results. */
export interface SarifResultSpec {
  rule: string;
  file: string;
  line?: number;
  message?: string;
  level?: 'error' | 'warning' | 'note' | 'none';
  securitySeverity?: number;
  /** The code at the location (region.snippet). */
  snippet?: string;
  /** Locations after the first. */
  more?: { file: string; line: number }[];
}

export function sarifLog(results: SarifResultSpec[], tool = 'TestScanner'): string {
  const rules = [...new Set(results.map((r) => r.rule))].map((id) => ({ id, shortDescription: { text: `Rule ${id}` } }));
  return JSON.stringify({
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: tool, version: '1.0.0', rules } },
      results: results.map((r) => ({
        ruleId: r.rule,
        level: r.level ?? 'warning',
        message: { text: r.message ?? `${r.rule} found in ${r.file}` },
        locations: [
          { physicalLocation: { artifactLocation: { uri: r.file }, region: { startLine: r.line ?? 1, ...(r.snippet !== undefined ? { snippet: { text: r.snippet } } : {}) } } },
          ...(r.more ?? []).map((m) => ({ physicalLocation: { artifactLocation: { uri: m.file }, region: { startLine: m.line } } })),
        ],
        ...(r.securitySeverity !== undefined ? { properties: { 'security-severity': String(r.securitySeverity) } } : {}),
      })),
    }],
  });
}
