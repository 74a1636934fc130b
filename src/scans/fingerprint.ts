import { hash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { NormalisedFinding } from '../domain/scan.js';

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
  const distinct = new Distinct(findings);
  distinct.take(findings.length);
  return distinct.out;
}

/**
 * fingerprintDistinct a slice at a time, giving the event loop a turn between slices: the ingest
 * works out the next analysis's fingerprints this way while PostgreSQL stores the one before, so
 * that the rows of that COPY are still sent on time.
 */
export async function fingerprintDistinctInTurns(findings: readonly NormalisedFinding[], perTurn = 2000): Promise<DistinctFindings> {
  const distinct = new Distinct(findings);
  while (distinct.take(perTurn)) await setImmediate();
  return distinct.out;
}

/** fingerprintDistinct's work, in order, as far as it has gone. */
class Distinct {
  // Per identity, the index of its first occurrence, or of each distinct one once it has several:
  // plain numbers, as this runs once per result.
  readonly #seen = new Map<string, number | number[]>();
  readonly #fingerprints: string[] = [];
  #next = 0;
  readonly out: DistinctFindings = { findings: new Map(), repeats: new Map() };

  constructor(private readonly findings: readonly NormalisedFinding[]) {}

  /** Fingerprints up to `count` more findings; false once all are done. */
  take(count: number): boolean {
    const { findings, out } = this;
    const seen = this.#seen;
    const fingerprints = this.#fingerprints;
    const end = Math.min(findings.length, this.#next + count);
    for (let index = this.#next; index < end; index++) {
      const finding = findings[index]!;
      const base = identity(finding);
      const earlier = seen.get(base);
      let fingerprint: string;
      if (earlier === undefined) {
        seen.set(base, index);
        fingerprint = hash('sha256', base).slice(0, 40);
      } else {
        const group = typeof earlier === 'number' ? [earlier] : earlier;
        const repeated = group.find((i) => sameOccurrence(findings[i]!, finding));
        if (repeated !== undefined) {
          const first = fingerprints[repeated]!;
          out.repeats.set(first, (out.repeats.get(first) ?? 1) + 1);
          fingerprints.push(first);
          continue;
        }
        fingerprint = hash('sha256', `${base}\u0000#${group.length}`).slice(0, 40);
        group.push(index);
        seen.set(base, group);
      }
      fingerprints.push(fingerprint);
      out.findings.set(fingerprint, finding);
    }
    this.#next = end;
    return end < findings.length;
  }
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
