import { collection, line, record, requiredText, text, type JsonRecord } from '../access.js';
import { analysis, finding } from '../finding.js';
import { severityOf, UNRATED } from '../../../domain/severity.js';
import { parseJsonObject } from '../text.js';
import { type NormalisedScan, type Severity } from '../../../domain/scan.js';
import { FAMILIES, type FormatParser } from '../types.js';

/** Semgrep's rule severities; newer releases also write critical/high/medium/low. */
const SEVERITY: ReadonlyMap<string, Severity> = new Map<string, Severity>([
  ['ERROR', 'high'],
  ['WARNING', 'medium'],
  ['INFO', 'low'],
  ['INVENTORY', 'info'],
  ['EXPERIMENT', 'info'],
]);

/** Placeholder Semgrep writes instead of a fingerprint when not logged in to Semgrep AppSec. */
const NO_FINGERPRINT = 'requires login';

/** Semgrep's JSON output (`semgrep --json`). */
export function parseSemgrep(doc: JsonRecord): NormalisedScan {
  const result = analysis('Semgrep', text(doc.version) ?? null);
  collection(doc.results, 'results').forEach((item, index) => {
    const path = `results[${index}]`;
    const ruleId = requiredText(item.check_id, `${path}.check_id`);
    const extra = record(item.extra);
    const metadata = record(extra?.metadata);
    const word = text(extra?.severity);
    const fingerprint = text(extra?.fingerprint);
    result.findings.push(
      finding({
        ruleId,
        message: text(extra?.message) ?? ruleId,
        severity: SEVERITY.get(word?.toUpperCase() ?? '') ?? severityOf(word) ?? UNRATED,
        level: word ?? null,
        filePath: text(item.path) ?? null,
        startLine: line(record(item.start)?.line),
        endLine: line(record(item.end)?.line),
        fingerprint: fingerprint && fingerprint !== NO_FINGERPRINT ? fingerprint : null,
        helpUri: text(metadata?.source) ?? text(metadata?.shortlink) ?? null,
      }),
    );
  });
  return { format: 'findings', analyses: [result] };
}

export const semgrep: FormatParser = {
  title: 'Semgrep', format: 'findings', syntax: 'json', contentTypes: [],
  // With no results, its "paths" and "errors" still tell it from OSV-Scanner.
  recognises: (doc) => !doc.array && doc.hasKey('results') && (doc.hasKey('check_id') || (doc.hasKey('paths') && doc.hasKey('errors'))),
  parse: (body) => parseSemgrep(parseJsonObject(body, FAMILIES.findings.document)),
};
