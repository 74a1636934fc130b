import type { Severity } from './scan.js';

/**
 * GitHub's reading of a CVSS-like 0–10 score (the one SARIF `security-severity` was made for):
 * over 9.0 critical, 7.0–9.0 high, 4.0–6.9 medium, 0.1–3.9 low, 0 info.
 */
export function severityFromScore(score: number): Severity {
  if (score > 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'info';
}

const WORDS: ReadonlyMap<string, Severity> = new Map<string, Severity>([
  ['critical', 'critical'],
  ['high', 'high'],
  ['medium', 'medium'],
  ['moderate', 'medium'],
  ['low', 'low'],
  ['info', 'info'],
  ['informational', 'info'],
  ['negligible', 'info'],
  ['none', 'info'],
]);

/**
 * A tool's severity word in our scale, whatever its case; undefined for words that carry no
 * rating ("unknown", "unspecified") so that callers can fall back to a score.
 */
export function severityFromWord(word: unknown): Severity | undefined {
  return typeof word === 'string' ? WORDS.get(word.trim().toLowerCase()) : undefined;
}

/**
 * The one mapping of a tool's rating: its severity word, else its 0–10 score; undefined when it
 * gives neither (callers decide: UNRATED, or another rating).
 */
export function severityOf(word: unknown, rating?: number): Severity | undefined {
  return severityFromWord(word) ?? (rating !== undefined ? severityFromScore(rating) : undefined);
}

/** Higher is worse; the findings index sorts on it. */
export const SEVERITY_RANK: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };

export function higher(a: Severity, b: Severity): Severity {
  return SEVERITY_RANK[b] > SEVERITY_RANK[a] ? b : a;
}

/** Used when a format gives a finding but no way to rate it. */
export const UNRATED: Severity = 'medium';
