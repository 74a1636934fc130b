import { collection, type JsonRecord, list, record, records, requiredText, score, text } from '../access.js';
import { analysis, finding, packageFingerprint } from '../finding.js';
import { severityFromScore, severityFromWord, UNRATED } from '../../../domain/severity.js';
import { parseJsonObject } from '../text.js';
import { type NormalisedFinding, type NormalisedScan, type Severity } from '../../../domain/scan.js';
import { FAMILIES, type FormatParser } from '../types.js';

/**
 * OSV-Scanner's JSON output: per scanned source (lockfile, SBOM), per package, its OSV records.
 * Records that are aliases of one another (a GHSA and its CVE) are grouped by OSV-Scanner; a
 * group is one finding, named by its first record.
 */
export function parseOsvScanner(doc: JsonRecord): NormalisedScan {
  const result = analysis('OSV-Scanner', null);
  collection(doc.results, 'results').forEach((source, s) => {
    const file = text(record(source.source)?.path) ?? null;
    collection(source.packages, `results[${s}].packages`).forEach((entry, p) => {
      readPackage(entry, file, `results[${s}].packages[${p}]`, result.findings);
    });
  });
  return { format: 'findings', analyses: [result] };
}

function readPackage(entry: JsonRecord, file: string | null, path: string, into: NormalisedFinding[]): void {
  const pkg = record(entry.package);
  const name = text(pkg?.name) ?? null;
  const version = text(pkg?.version) ?? null;
  const purl = text(pkg?.purl) ?? null;
  const groups = records(entry.groups);
  const reported = new Set<JsonRecord>();
  collection(entry.vulnerabilities, `${path}.vulnerabilities`).forEach((vulnerability, v) => {
    const id = requiredText(vulnerability.id, `${path}.vulnerabilities[${v}].id`);
    const group = groups.find((candidate) => list(candidate.ids).includes(id));
    if (group) {
      if (reported.has(group)) return;
      reported.add(group);
    }
    const rating = ratingOf(vulnerability, group);
    into.push(
      finding({
        ruleId: id,
        ruleName: text(vulnerability.summary) ?? null,
        message: text(vulnerability.summary) ?? text(vulnerability.details) ?? id,
        severity: rating.severity,
        level: rating.level,
        filePath: file,
        fingerprint: packageFingerprint(purl, name, version),
        packageName: name,
        packageVersion: version,
        purl,
        securitySeverity: rating.score,
        helpUri: `https://osv.dev/vulnerability/${encodeURIComponent(id)}`,
      }),
    );
  });
}

/**
 * The group's max_severity (a CVSS score OSV-Scanner computed), else the severity word the
 * advisory database gives. A malicious package (MAL-) with neither is as bad as it gets.
 */
function ratingOf(
  vulnerability: JsonRecord,
  group: JsonRecord | undefined,
): { severity: Severity; level: string | null; score: number | null } {
  const maxSeverity = score(group?.max_severity);
  if (maxSeverity !== undefined) {
    return { severity: severityFromScore(maxSeverity), level: text(group?.max_severity) ?? null, score: maxSeverity };
  }
  const word = text(record(vulnerability.database_specific)?.severity);
  const fromWord = severityFromWord(word);
  if (fromWord) return { severity: fromWord, level: word ?? null, score: null };
  const id = text(vulnerability.id) ?? '';
  return { severity: id.startsWith('MAL-') ? 'critical' : UNRATED, level: null, score: null };
}

export const osvScanner: FormatParser = {
  title: 'OSV-Scanner', format: 'findings', syntax: 'json', contentTypes: [],
  recognises: (doc) => !doc.array && doc.hasKey('results') && doc.hasKey('packages'),
  parse: (body) => parseOsvScanner(parseJsonObject(body, FAMILIES.findings.document)),
};
