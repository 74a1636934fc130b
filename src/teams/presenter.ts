import type { TeamRepoRow, TeamWithMembers } from './store.js';
import type { TeamJson, TeamRepoJson } from './schema.js';

export function presentTeamRepo(row: Pick<TeamRepoRow, 'repository_id' | 'name' | 'role'> & { full_name?: string | null }): TeamRepoJson {
  return { repository_id: row.repository_id, name: row.name, full_name: row.full_name ?? null, role: row.role };
}

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
