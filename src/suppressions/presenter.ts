import type { SuppressionRow } from '../db/schema.js';
import type { SuppressionJson } from './schema.js';

export function presentSuppression(row: SuppressionRow & { findings: number }): SuppressionJson {
  return {
    id: row.id, org_id: row.org_id, tool: row.tool, rule_id: row.rule_id, path: row.path, purl: row.purl, advisory: row.advisory,
    repositories: row.repository_ids ? (JSON.parse(row.repository_ids) as string[]) : null,
    reason: row.reason as 'false_positive', comment: row.comment, expires_at: row.expires_at, created_at: row.created_at, findings: row.findings,
  };
}
