import type { OrgWithCounts } from './store.js';
import type { OrgJson } from './schema.js';

export function presentOrg(row: OrgWithCounts): OrgJson {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    repo_count: row.repo_count,
    base_role: row.base_role,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
