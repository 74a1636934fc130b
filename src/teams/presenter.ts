import type { TeamWithMembers } from './store.js';
import type { TeamJson } from './schema.js';

export function presentTeam(row: TeamWithMembers): TeamJson {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    description: row.description,
    members: row.members,
    source: row.source,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
