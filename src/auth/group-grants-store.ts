import type { Kysely } from 'kysely';
import type { Database, OrgRole, Source } from '../db/schema.js';

/** SQL for the memberships and team memberships a sign-in provider's group mappings grant. */
export function groupGrantStore(db: Kysely<Database>) {
  return {
    async orgsByKey(keys: string[]): Promise<{ id: string; name_key: string }[]> {
      if (keys.length === 0) return [];
      return db.selectFrom('orgs').select(['id', 'name_key']).where('name_key', 'in', keys).execute();
    },

    /** The teams of these orgs with these name keys, with their source: group-grants.ts leaves SCIM's alone (their members are exactly its group's). */
    async teamsByKey(orgIds: string[], keys: string[]): Promise<{ id: string; org_id: string; name_key: string; source: string }[]> {
      if (orgIds.length === 0 || keys.length === 0) return [];
      return db.selectFrom('teams').select(['id', 'org_id', 'name_key', 'source'])
        .where('org_id', 'in', orgIds).where('name_key', 'in', keys).execute();
    },

    async membershipsIn(userId: string, orgIds: string[]): Promise<{ org_id: string; role: OrgRole; source: Source }[]> {
      if (orgIds.length === 0) return [];
      return db.selectFrom('memberships').select(['org_id', 'role', 'source'])
        .where('user_id', '=', userId).where('org_id', 'in', orgIds).execute();
    },

    async teamMembershipsIn(userId: string, teamIds: string[]): Promise<{ team_id: string; source: Source }[]> {
      if (teamIds.length === 0) return [];
      return db.selectFrom('team_members').select(['team_id', 'source'])
        .where('user_id', '=', userId).where('team_id', 'in', teamIds).execute();
    },

    async addMember(orgId: string, userId: string, role: OrgRole, at: string): Promise<void> {
      await db.insertInto('memberships').values({ org_id: orgId, user_id: userId, role, source: 'idp', created_at: at }).execute();
    },

    /** Only a membership the IdP granted: one given by hand, by the forge or by SCIM is never changed here. */
    async setIdpRole(orgId: string, userId: string, role: OrgRole): Promise<void> {
      await db.updateTable('memberships').set({ role })
        .where('org_id', '=', orgId).where('user_id', '=', userId).where('source', '=', 'idp').execute();
    },

    /** Removes an IdP-granted membership and, as removing a member does, the user's teams in that org. */
    async removeIdpMember(orgId: string, userId: string): Promise<void> {
      const gone = await db.deleteFrom('memberships')
        .where('org_id', '=', orgId).where('user_id', '=', userId).where('source', '=', 'idp').executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) return;
      await db.deleteFrom('team_members').where('user_id', '=', userId)
        .where('team_id', 'in', (eb) => eb.selectFrom('teams').select('id').where('org_id', '=', orgId)).execute();
    },

    async addTeamMember(teamId: string, userId: string): Promise<void> {
      await db.insertInto('team_members').values({ team_id: teamId, user_id: userId, source: 'idp' }).execute();
    },

    async removeIdpTeamMember(teamId: string, userId: string): Promise<void> {
      await db.deleteFrom('team_members')
        .where('team_id', '=', teamId).where('user_id', '=', userId).where('source', '=', 'idp').execute();
    },
  };
}
export type GroupGrantStore = ReturnType<typeof groupGrantStore>;
