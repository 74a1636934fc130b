import { line, record, requiredText, text } from '../access.js';
import { analysis, finding } from '../finding.js';
import type { NormalisedScan } from '../types.js';

/**
 * Gitleaks' JSON report: an array of leaks. Secret, Match and Line hold the leaked value, and
 * Message is a commit message: none of them is ever copied.
 */
export function parseGitleaks(doc: unknown[]): NormalisedScan {
  const result = analysis('Gitleaks', null);
  doc.forEach((value, index) => {
    const leak = record(value);
    const ruleId = requiredText(leak?.RuleID, `[${index}].RuleID`);
    result.findings.push(
      finding({
        ruleId,
        ruleName: text(leak?.Description) ?? null,
        message: text(leak?.Description) ?? `Secret found by rule ${ruleId}`,
        // Gitleaks does not rate its findings: a committed secret is high.
        severity: 'high',
        filePath: text(leak?.File) ?? null,
        startLine: line(leak?.StartLine),
        endLine: line(leak?.EndLine),
        fingerprint: text(leak?.Fingerprint) ?? null,
      }),
    );
  });
  return { format: 'findings', analyses: [result] };
}

export function isGitleaksReport(doc: unknown[]): boolean {
  return doc.every((item) => record(item)?.RuleID !== undefined);
}
