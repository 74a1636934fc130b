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

/** The findings of one analysis by fingerprint, a result the tool repeated counted rather than kept twice. */
export interface DistinctFindings {
  findings: Map<string, NormalisedFinding>;
  /** Fingerprints reported more than once, with how many times; absent means once. */
  repeats: Map<string, number>;
}

/**
 * fingerprintAll, except that a result the tool repeats (same identity, lines, message and severity:
 * nothing a reader could tell apart) is one finding with a count, not a second finding under the
 * next ordinal. Ordinals then number only distinct occurrences, so a tool that stops repeating
 * itself moves no other finding's identity. Only findings whose identity was already seen are
 * compared, so a log without repeats costs what fingerprintAll does.
 */
export function fingerprintDistinct(findings: readonly NormalisedFinding[]): DistinctFindings {
  const seen = new Map<string, { finding: NormalisedFinding; fingerprint: string }[]>();
  const out: DistinctFindings = { findings: new Map(), repeats: new Map() };
  for (const finding of findings) {
    const base = identity(finding);
    const group = seen.get(base);
    const repeated = group?.find((earlier) => sameOccurrence(earlier.finding, finding));
    if (repeated) {
      out.repeats.set(repeated.fingerprint, (out.repeats.get(repeated.fingerprint) ?? 1) + 1);
      continue;
    }
    const occurrence = group?.length ?? 0;
    const fingerprint = hash('sha256', occurrence === 0 ? base : `${base}\u0000#${occurrence}`).slice(0, 40);
    if (group) group.push({ finding, fingerprint });
    else seen.set(base, [{ finding, fingerprint }]);
    out.findings.set(fingerprint, finding);
  }
  return out;
}

function sameOccurrence(a: NormalisedFinding, b: NormalisedFinding): boolean {
  return a.startLine === b.startLine && a.endLine === b.endLine && a.message === b.message && a.severity === b.severity
    && a.packageVersion === b.packageVersion && a.commitSha === b.commitSha && a.kind === b.kind;
}

function identity(finding: NormalisedFinding): string {
  const detail = finding.fingerprint ?? normaliseMessage(finding.message);
  return [finding.ruleId, finding.filePath ?? '', detail].join('\u0000');
}

function normaliseMessage(message: string): string {
  return message.trim().replace(/\s+/g, ' ').toLowerCase();
}
