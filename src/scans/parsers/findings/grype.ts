import { collection, type JsonRecord, list, record, records, score, text } from '../access.js';
import { analysis, finding, packageFingerprint } from '../finding.js';
import { severityOf, UNRATED } from '../../../domain/severity.js';
import { parseJsonObject } from '../text.js';
import { type NormalisedFinding, type NormalisedScan } from '../../../domain/scan.js';
import { FAMILIES, ParseError, type FormatParser } from '../types.js';

/** Grype's JSON report (`grype -o json`): one match per vulnerability found in a package. */
export function parseGrype(doc: JsonRecord): NormalisedScan {
  const descriptor = record(doc.descriptor);
  const result = analysis(text(descriptor?.name) ?? 'grype', text(descriptor?.version) ?? null);
  collection(doc.matches, 'matches').forEach((match, index) => result.findings.push(fromMatch(match, index)));
  return { format: 'findings', analyses: [result] };
}

function fromMatch(match: JsonRecord, index: number): NormalisedFinding {
  const vulnerability = record(match.vulnerability);
  const id = text(vulnerability?.id);
  if (!vulnerability || !id) throw new ParseError(`matches[${index}].vulnerability.id is missing`);
  const related = records(match.relatedVulnerabilities);
  const artifact = record(match.artifact);
  const name = text(artifact?.name) ?? null;
  const version = text(artifact?.version) ?? null;
  const purl = text(artifact?.purl) ?? null;
  const cvssScore = maxCvss([vulnerability, ...related]);
  const word = text(vulnerability.severity);
  return finding({
    ruleId: id,
    message: text(vulnerability.description) ?? text(related[0]?.description) ?? id,
    // "Negligible" reads as info; "Unknown" carries no rating, so the CVSS score decides.
    severity: severityOf(word, cvssScore) ?? UNRATED,
    level: word ?? null,
    filePath: text(record(list(artifact?.locations)[0])?.path) ?? null,
    fingerprint: packageFingerprint(purl, name, version),
    packageName: name,
    packageVersion: version,
    purl,
    securitySeverity: cvssScore ?? null,
    helpUri: text(vulnerability.dataSource) ?? text(list(vulnerability.urls)[0]) ?? null,
  });
}

function maxCvss(sources: JsonRecord[]): number | undefined {
  let max: number | undefined;
  for (const source of sources) {
    for (const cvss of records(source.cvss)) {
      const value = score(record(cvss.metrics)?.baseScore);
      if (value !== undefined && (max === undefined || value > max)) max = value;
    }
  }
  return max;
}

export const grype: FormatParser = {
  title: 'Grype', format: 'findings', syntax: 'json', contentTypes: [],
  recognises: (doc) => !doc.array && doc.hasKey('matches') && (doc.hasKey('matchDetails') || doc.hasKey('descriptor')),
  parse: (body) => parseGrype(parseJsonObject(body, FAMILIES.findings.document)),
};
