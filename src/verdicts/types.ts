import type { Severity } from '../domain/scan.js';
import type { SeverityCounts } from '../domain/changes.js';
import type { Gate } from '../gates/types.js';
import type { ComponentsDiff } from '../results/components-diff.js';

export type SbomDiffCounts = Record<keyof ComponentsDiff, number>;

/** What is posted on pull requests: a check run (or commit status), and the one comment. */
export interface PrFeedback {
  checks: boolean;
  comment: 'on_change' | 'always' | 'off';
}

export const DEFAULT_PR_FEEDBACK: PrFeedback = { checks: true, comment: 'on_change' };

/** What a delivery sends: `check_run` (GitHub; a commit status elsewhere) or `comment` (a merge request note on GitLab). */
export type DeliveryKind = 'check_run' | 'comment' | 'status' | 'note';

export type Conclusion = 'success' | 'failure' | 'neutral';

/** A new finding as the forge shows it. */
export interface VerdictFinding {
  rule_id: string;
  message: string;
  severity: Severity;
  path: string | null;
  start_line: number | null;
  end_line: number | null;
  package_name: string | null;
  package_version: string | null;
  fixed_versions: string[];
  kev: boolean;
}

/**
 * Everything a forge delivery renders, fixed in the transaction that judged the upload: a retry
 * sends the same verdict, whatever happened since.
 */
export interface Verdict {
  repository: { id: string; name: string; full_name: string; forge_id: string | null };
  upload: { id: string; category: string; commit_sha: string | null; head_sha: string | null; created_at: string };
  /** The pull request's number; null for a push to the default branch. */
  pull_request: number | null;
  base_ref: string | null;
  /** `in_progress` while the upload is being processed (the check run created when it arrives). */
  state: 'in_progress' | 'completed';
  conclusion: Conclusion | null;
  /** Why the base could not be compared with, in one line; null when it could. */
  stale_base: string | null;
  gate: Gate | null;
  new_findings: { total: number; by_severity: SeverityCounts; kev: number; items: VerdictFinding[] };
  fixed: { total: number; by_severity: SeverityCounts };
  /**
   * The SBOM diff's counts (results/components-diff.ts) from the base branch to the pull request, in
   * this category, when both have an SBOM analysis there; absent or null otherwise (and in verdicts
   * queued before it was sent).
   */
  sbom_diff?: SbomDiffCounts | null;
  /** The page in Scanyard, without the base URL (added when sent). */
  path: string;
}

/** The name of the check run or commit status. */
export function checkName(category: string): string {
  return category ? `Scanyard (${category})` : 'Scanyard';
}
