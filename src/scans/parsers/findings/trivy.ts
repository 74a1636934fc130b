import { collection, type JsonRecord, line, list, record, requiredText, score, text } from '../access.js';
import { analysis, finding, packageFingerprint } from '../finding.js';
import { severityOf, UNRATED } from '../../../domain/severity.js';
import { parseJsonObject } from '../text.js';
import { type NormalisedFinding, type NormalisedScan, type Severity } from '../../../domain/scan.js';
import { FAMILIES, type FormatParser } from '../types.js';

/** Trivy's JSON report (SchemaVersion 2): vulnerabilities, misconfigurations and secrets per target. */
export function parseTrivy(doc: JsonRecord): NormalisedScan {
  const result = analysis('Trivy', text(record(doc.Trivy)?.Version) ?? null);
  collection(doc.Results, 'Results').forEach((target, t) => {
    const name = text(target.Target) ?? null;
    // OS packages have the image as target, not a file; language packages have their lockfile.
    const file = text(target.Class) === 'os-pkgs' ? null : name;
    const path = `Results[${t}]`;
    collection(target.Vulnerabilities, `${path}.Vulnerabilities`).forEach((vulnerability, i) => {
      result.findings.push(fromVulnerability(vulnerability, file, `${path}.Vulnerabilities[${i}]`));
    });
    collection(target.Misconfigurations, `${path}.Misconfigurations`).forEach((misconfiguration, i) => {
      const status = text(misconfiguration.Status);
      if (status !== undefined && status !== 'FAIL') return;
      result.findings.push(fromMisconfiguration(misconfiguration, name, `${path}.Misconfigurations[${i}]`));
    });
    collection(target.Secrets, `${path}.Secrets`).forEach((secret, i) => {
      result.findings.push(fromSecret(secret, name, `${path}.Secrets[${i}]`));
    });
  });
  return { format: 'findings', analyses: [result] };
}

function fromVulnerability(vulnerability: JsonRecord, file: string | null, path: string): NormalisedFinding {
  const id = requiredText(vulnerability.VulnerabilityID, `${path}.VulnerabilityID`);
  const name = text(vulnerability.PkgName) ?? null;
  const version = text(vulnerability.InstalledVersion) ?? null;
  const purl = text(record(vulnerability.PkgIdentifier)?.PURL) ?? null;
  const cvssScore = cvssOf(vulnerability);
  return finding({
    ruleId: id,
    ruleName: text(vulnerability.Title) ?? null,
    message: text(vulnerability.Title) ?? text(vulnerability.Description) ?? id,
    ...rated(vulnerability.Severity, cvssScore),
    filePath: text(vulnerability.PkgPath) ?? file,
    fingerprint: packageFingerprint(purl, name, version),
    packageName: name,
    packageVersion: version,
    purl,
    securitySeverity: cvssScore ?? null,
    helpUri: text(vulnerability.PrimaryURL) ?? null,
  });
}

function fromMisconfiguration(misconfiguration: JsonRecord, file: string | null, path: string): NormalisedFinding {
  const id = requiredText(text(misconfiguration.ID) ?? text(misconfiguration.AVDID), `${path}.ID`);
  const cause = record(misconfiguration.CauseMetadata);
  return finding({
    ruleId: id,
    ruleName: text(misconfiguration.Title) ?? null,
    message: text(misconfiguration.Message) ?? text(misconfiguration.Description) ?? text(misconfiguration.Title) ?? id,
    ...rated(misconfiguration.Severity, undefined),
    filePath: file,
    startLine: line(cause?.StartLine),
    endLine: line(cause?.EndLine),
    helpUri: text(misconfiguration.PrimaryURL) ?? text(list(misconfiguration.References)[0]) ?? null,
  });
}

/**
 * Never the Match or Code fields: they hold the secret itself. Nor the line for identity: a secret
 * that moves stays the same finding, and two of one rule in one file are told apart by their order.
 */
function fromSecret(secret: JsonRecord, file: string | null, path: string): NormalisedFinding {
  const id = requiredText(secret.RuleID, `${path}.RuleID`);
  return finding({
    ruleId: id,
    ruleName: text(secret.Title) ?? null,
    message: text(secret.Title) ?? `Secret found by rule ${id}`,
    ...rated(secret.Severity, undefined),
    filePath: file,
    startLine: line(secret.StartLine),
    endLine: line(secret.EndLine),
  });
}

function rated(word: unknown, cvssScore: number | undefined): { severity: Severity; level: string | null } {
  return { severity: severityOf(word, cvssScore) ?? UNRATED, level: text(word) ?? null };
}

/** The CVSS v3 score of the source Trivy took its severity from, else NVD's. */
function cvssOf(vulnerability: JsonRecord): number | undefined {
  const cvss = record(vulnerability.CVSS);
  if (!cvss) return undefined;
  const source = text(vulnerability.SeveritySource);
  const preferred = source !== undefined ? record(cvss[source]) : undefined;
  return score(preferred?.V3Score) ?? score(record(cvss.nvd)?.V3Score);
}

export const trivy: FormatParser = {
  title: 'Trivy', format: 'findings', syntax: 'json', contentTypes: [],
  recognises: (doc) => !doc.array && doc.hasKey('SchemaVersion') && (doc.hasKey('ArtifactName') || doc.hasKey('Results')),
  parse: (body) => parseTrivy(parseJsonObject(body, FAMILIES.findings.document)),
};
