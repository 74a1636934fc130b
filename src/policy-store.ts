import { sql, type ExpressionBuilder } from 'kysely';
import type { Database, RepoRole } from './db/schema.js';

/**
 * The policy's questions to the database about repositories, as SQL every query that reads
 * repositories for a user joins or filters by (policy.ts decides; these read what it decides on).
 */

/**
 * The best role `userId`'s teams hold on the outer query's repository, as one correlated subquery
 * (team_repositories_repository, then team_members_pk): null when none.
 */
export function teamRoleOn(eb: ExpressionBuilder<Database, 'repos'>, userId: string) {
  return eb.selectFrom('team_repositories')
    .innerJoin('team_members', (join) => join.onRef('team_members.team_id', '=', 'team_repositories.team_id').on('team_members.user_id', '=', userId))
    .whereRef('team_repositories.repository_id', '=', 'repos.id')
    .select(sql<RepoRole | null>`case max(case ${sql.ref('team_repositories.role')} when 'admin' then 3 when 'triage' then 2 else 1 end) when 3 then 'admin' when 2 then 'triage' when 1 then 'read' end`.as('r'))
    .as('team_role');
}

/**
 * The repositories `userId` may read, as a condition on `repos` for every list, count and search
 * across repositories: those of the orgs where they are an owner or the base role is "read", and
 * those their teams hold (team members are members: leaving the org leaves its teams). The same
 * rule as the policy's repoRoleOf, in SQL; site administrators are not filtered at all.
 */
export function readableBy(userId: string) {
  return (eb: ExpressionBuilder<Database, 'repos'>) => eb.or([
    eb('repos.org_id', 'in', eb.selectFrom('memberships').innerJoin('orgs', 'orgs.id', 'memberships.org_id')
      .select('memberships.org_id').where('memberships.user_id', '=', userId)
      .where((w) => w.or([w('memberships.role', '=', 'owner'), w('orgs.base_role', '=', 'read')]))),
    eb('repos.id', 'in', eb.selectFrom('team_members').innerJoin('team_repositories', 'team_repositories.team_id', 'team_members.team_id')
      .select('team_repositories.repository_id').where('team_members.user_id', '=', userId)),
  ]);
}
