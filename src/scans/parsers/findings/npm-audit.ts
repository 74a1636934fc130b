import { collectionByName, type JsonRecord, list, number, record, score, text } from '../access.js';
import { analysis, finding, packageFingerprint } from '../finding.js';
import { severityOf, UNRATED } from '../../../domain/severity.js';
import { parseJsonObject } from '../text.js';
import { type NormalisedFinding, type NormalisedScan } from '../../../domain/scan.js';
import { FAMILIES, type FormatParser } from '../types.js';

const GHSA = /GHSA-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/i;

/**
 * `npm audit --json`: version 2 (npm 7+) lists vulnerable packages, whose `via` holds the
 * advisories (objects) and the vulnerable dependencies they come through (strings, not findings);
 * version 1 (npm 6) lists advisories with the versions they were found in.
 */
export function parseNpmAudit(doc: JsonRecord): NormalisedScan {
  const result = analysis('npm audit', null);
  if (doc.auditReportVersion !== undefined) readV2(collectionByName(doc.vulnerabilities, 'vulnerabilities'), result.findings);
  else readV1(collectionByName(doc.advisories, 'advisories'), result.findings);
  return { format: 'findings', analyses: [result] };
}

function readV2(vulnerabilities: [string, JsonRecord][], into: NormalisedFinding[]): void {
  const seen = new Set<string>();
  for (const [key, vulnerable] of vulnerabilities) {
    for (const via of list(vulnerable.via)) {
      const advisory = record(via);
      if (!advisory) continue;
      const name = text(advisory.name) ?? text(vulnerable.name) ?? key;
      const ruleId = advisoryId(advisory.url, advisory.source);
      if (ruleId === undefined) continue;
      // One advisory can reach a package through several entries; it is one finding.
      const identity = `${ruleId}\u0000${name}\u0000${text(advisory.range) ?? ''}`;
      if (seen.has(identity)) continue;
      seen.add(identity);
      into.push(fromAdvisory(advisory, ruleId, name, null));
    }
  }
}

function readV1(advisories: [string, JsonRecord][], into: NormalisedFinding[]): void {
  for (const [, advisory] of advisories) {
    const ruleId = text(advisory.github_advisory_id) ?? advisoryId(advisory.url, advisory.id);
    const name = text(advisory.module_name) ?? null;
    if (ruleId === undefined || name === null) continue;
    const versions = list(advisory.findings).map((found) => text(record(found)?.version) ?? null);
    for (const version of versions.length > 0 ? versions : [null]) {
      into.push(fromAdvisory(advisory, ruleId, name, version));
    }
  }
}

function fromAdvisory(advisory: JsonRecord, ruleId: string, name: string, version: string | null): NormalisedFinding {
  const word = text(advisory.severity);
  const cvssScore = score(record(advisory.cvss)?.score);
  return finding({
    ruleId,
    ruleName: text(advisory.title) ?? null,
    message: text(advisory.title) ?? text(advisory.overview) ?? ruleId,
    // Its score is often 0 for "none given", so only the word rates it.
    severity: severityOf(word) ?? UNRATED,
    level: word ?? null,
    // npm audit v2 does not say which version is installed; the package alone identifies the finding.
    fingerprint: packageFingerprint(null, name, version),
    packageName: name,
    packageVersion: version,
    // npm writes a score of 0 when it has none.
    securitySeverity: cvssScore !== undefined && cvssScore > 0 ? cvssScore : null,
    helpUri: text(advisory.url) ?? null,
  });
}

/** The GHSA id from the advisory URL when there is one; npm's own numeric id otherwise. */
function advisoryId(url: unknown, source: unknown): string | undefined {
  const ghsa = GHSA.exec(text(url) ?? '')?.[0];
  if (ghsa) return ghsa;
  const id = number(source);
  return id !== undefined ? `npm-${id}` : text(source);
}

export const npmAudit: FormatParser = {
  title: 'npm audit', format: 'findings', syntax: 'json', contentTypes: [],
  recognises: (doc) => !doc.array && (doc.hasKey('auditReportVersion') || (doc.hasKey('advisories') && doc.hasKey('actions'))),
  parse: (body) => parseNpmAudit(parseJsonObject(body, FAMILIES.findings.document)),
};
