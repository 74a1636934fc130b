import type { Kysely } from 'kysely';
import type { Database, RepoRole, TeamRow } from '../db/schema.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { readableBy } from '../policy-store.js';

/** A repository a team holds, with the role it holds. */
export interface TeamRepoRow {
  repository_id: string;
  name: string;
  full_name: string | null;
  role: RepoRole;
}

export type TeamWithMembers = TeamRow & { members: string[] };

export function teamStore(db: Kysely<Database>) {
  /** One query for the members of every team on a page, not one per team. */
  async function withMembers(teams: TeamRow[]): Promise<TeamWithMembers[]> {
    if (teams.length === 0) return [];
    const rows = await db.selectFrom('team_members').select(['team_id', 'user_id'])
      .where('team_id', 'in', teams.map((t) => t.id)).orderBy('team_id').orderBy('user_id').execute();
    const byTeam = new Map<string, string[]>();
    for (const row of rows) byTeam.set(row.team_id, [...(byTeam.get(row.team_id) ?? []), row.user_id]);
    return teams.map((team) => ({ ...team, members: byTeam.get(team.id) ?? [] }));
  }

  return {
    async insert(team: TeamRow): Promise<void> {
      await db.insertInto('teams').values(team).execute();
    },

    async byId(id: string): Promise<TeamWithMembers | undefined> {
      const team = await db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
      return team && (await withMembers([team]))[0];
    },

    async page(orgId: string, page: Page): Promise<Paged<TeamWithMembers>> {
      const { total, items } = await paginate(db.selectFrom('teams').where('org_id', '=', orgId), page,
        (q) => q.selectAll().orderBy('created_at').orderBy('id'));
      return { total, items: await withMembers(items) };
    },

    /** False when the team is gone. */
    async update(id: string, fields: Partial<Pick<TeamRow, 'name' | 'name_key' | 'description'>> & { updated_at: string }): Promise<boolean> {
      const result = await db.updateTable('teams').set(fields).where('id', '=', id).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async replaceMembers(teamId: string, userIds: string[]): Promise<void> {
      await db.deleteFrom('team_members').where('team_id', '=', teamId).execute();
      if (userIds.length) {
        await db.insertInto('team_members').values(userIds.map((user_id) => ({ team_id: teamId, user_id }))).execute();
      }
    },

    /** The repository's names when it belongs to `orgId` (undefined: none such in that org). */
    async repoInOrg(repositoryId: string, orgId: string): Promise<{ name: string; full_name: string | null } | undefined> {
      return db.selectFrom('repos').select(['name', 'full_name']).where('id', '=', repositoryId).where('org_id', '=', orgId).executeTakeFirst();
    },

    /** Grants `role` on the repository, or changes the role already granted. */
    async grant(teamId: string, repositoryId: string, role: RepoRole): Promise<void> {
      await db.insertInto('team_repositories').values({ team_id: teamId, repository_id: repositoryId, role })
        .onConflict((oc) => oc.columns(['team_id', 'repository_id']).doUpdateSet({ role })).execute();
    },

    /** False when the team held no role on it. */
    async revoke(teamId: string, repositoryId: string): Promise<boolean> {
      const result = await db.deleteFrom('team_repositories').where('team_id', '=', teamId).where('repository_id', '=', repositoryId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The team's repositories, by name; only those `readerId` may read (null: all). */
    repos(teamId: string, readerId: string | null, page: Page): Promise<Paged<TeamRepoRow>> {
      const held = db.selectFrom('team_repositories').innerJoin('repos', 'repos.id', 'team_repositories.repository_id')
        .where('team_repositories.team_id', '=', teamId)
        .$if(readerId !== null, (q) => q.where(readableBy(readerId!)));
      return paginate(held, page, (q) => q.select(['team_repositories.repository_id', 'repos.name', 'repos.full_name', 'team_repositories.role'])
        .orderBy('repos.name_key').orderBy('repos.id'));
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('teams').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type TeamStore = ReturnType<typeof teamStore>;
