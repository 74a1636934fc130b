import { hash } from 'node:crypto';
import type { NormalisedFinding } from './parsers/types.js';

/**
 * A finding's identity within its analysis, as GitHub code scanning matches alerts: rule and file
 * together with the tool's own fingerprint when it gives one, else the normalised message. Never the
 * line number, so moving code does not churn findings. Identical findings in one file are told
 * apart by their order (the 2nd occurrence stays the 2nd when code moves).
 */
export function fingerprintAll(findings: readonly NormalisedFinding[]): string[] {
  const seen = new Map<string, number>();
  return findings.map((finding) => {
    const base = identity(finding);
    const occurrence = seen.get(base) ?? 0;
    seen.set(base, occurrence + 1);
    return hash('sha256', occurrence === 0 ? base : `${base}\u0000#${occurrence}`).slice(0, 40);
  });
}

function identity(finding: NormalisedFinding): string {
  const detail = finding.fingerprint ?? normaliseMessage(finding.message);
  return [finding.ruleId, finding.filePath ?? '', detail].join('\u0000');
}

function normaliseMessage(message: string): string {
  return message.trim().replace(/\s+/g, ' ').toLowerCase();
}
