import type { CiTrustRuleRow } from '../db/schema.js';
import type { TrustRuleJson } from './schema.js';

export function presentTrustRule(row: CiTrustRuleRow): TrustRuleJson {
  return {
    id: row.id, org_id: row.org_id, issuer: row.issuer, repository: row.repository, ref: row.ref, event: row.event,
    environment: row.environment, target_repo_id: row.target_repo_id, created_at: row.created_at,
  };
}
