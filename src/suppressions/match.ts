import type { SuppressionsTable } from '../db/schema.js';
import { compileGlob } from './glob.js';

/** What a suppression rule matches on; every field given must match. */
export type SuppressionCriteria = Pick<SuppressionsTable, 'tool' | 'rule_id' | 'path' | 'purl' | 'advisory' | 'repository_ids'>;

/** The parts of a finding a rule looks at. */
export interface MatchableFinding {
  repository_id: string;
  tool: string;
  rule_id: string;
  file_path: string | null;
  purl: string | null;
}

/**
 * A rule as a predicate, compiled once (the glob) and then run per finding at ingest. Tool, rule and
 * advisory compare without case; the path glob (`test/**`, `**\/*.spec.ts`; glob.ts) is matched on
 * the path without a leading `./`; a purl matches as a prefix ending at a component boundary, so
 * `pkg:npm/lodash` covers `pkg:npm/lodash@4.17.20` but not `pkg:npm/lodash-es`.
 */
export function suppressionMatcher(rule: SuppressionCriteria): (finding: MatchableFinding) => boolean {
  const glob = rule.path ? compileGlob(rule.path) : null;
  const repositories = rule.repository_ids ? new Set(JSON.parse(rule.repository_ids) as string[]) : null;
  const tool = rule.tool?.toLowerCase();
  const ruleId = rule.rule_id?.toLowerCase();
  const advisory = rule.advisory?.toLowerCase();
  return (finding) => {
    if (repositories && !repositories.has(finding.repository_id)) return false;
    if (tool !== undefined && finding.tool.toLowerCase() !== tool) return false;
    if (ruleId !== undefined && finding.rule_id.toLowerCase() !== ruleId) return false;
    if (advisory !== undefined && finding.rule_id.toLowerCase() !== advisory) return false;
    if (glob && (finding.file_path === null || !glob(finding.file_path.replace(/^\.\//, '')))) return false;
    if (rule.purl && !purlCovers(rule.purl, finding.purl)) return false;
    return true;
  };
}

function purlCovers(prefix: string, purl: string | null): boolean {
  if (purl === null || !purl.startsWith(prefix)) return false;
  const next = purl.charAt(prefix.length);
  return next === '' || next === '@' || next === '?' || next === '#' || prefix.endsWith('/') || prefix.endsWith('@');
}
