import { commitSha, describeType, line, record, requiredText, text } from '../access.js';
import { analysis, finding } from '../finding.js';
import { parseJson } from '../text.js';
import { type NormalisedScan } from '../../../domain/scan.js';
import { FAMILIES, ParseError, type FormatParser } from '../types.js';

/**
 * Gitleaks' JSON report: an array of leaks. Secret, Match and Line hold the leaked value, and
 * Message is a commit message: none of them is ever copied. Commit (the commit a secret was found
 * in, "" when Gitleaks scanned a directory) is kept.
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
        fingerprint: withoutLine(text(leak?.Fingerprint), line(leak?.StartLine)),
        commitSha: commitSha(leak?.Commit),
      }),
    );
  });
  return { format: 'findings', analyses: [result] };
}

/**
 * Gitleaks' Fingerprint is `commit:file:rule:line` (`file:rule:line` for a directory scan). The line
 * is dropped, so a secret that moves within its file stays one finding (docs/architecture.md,
 * "Findings identity"); two secrets of one rule in one file are told apart by their order.
 */
function withoutLine(fingerprint: string | undefined, startLine: number | null): string | null {
  if (fingerprint === undefined) return null;
  const suffix = `:${startLine}`;
  return startLine !== null && fingerprint.endsWith(suffix) ? fingerprint.slice(0, -suffix.length) : fingerprint;
}

export const gitleaks: FormatParser = {
  title: 'Gitleaks', format: 'findings', syntax: 'json', contentTypes: [],
  // An array of leaks, and [] when it found none.
  recognises: (doc) => doc.array && (doc.hasKey('RuleID') || doc.isEmptyArray()),
  parse(body) {
    const doc = parseJson(body, FAMILIES.findings.document);
    if (!Array.isArray(doc)) throw new ParseError(`A Gitleaks report must be a JSON array, not ${describeType(doc)}`);
    return parseGitleaks(doc);
  },
};
