import type { Kysely } from 'kysely';
import type { Database, OrgRole, Source } from '../db/schema.js';
import { paginate, type Page, type Paged } from '../db/page.js';

export interface MemberRow {
  user_id: string;
  login: string;
  name: string | null;
  avatar_url: string | null;
  role: OrgRole;
  joined_at: string;
  source: Source;
}

export function memberStore(db: Kysely<Database>) {
  const joined = () => db.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id');
  const COLUMNS = ['memberships.user_id', 'users.login', 'users.name', 'users.avatar_url', 'memberships.role', 'memberships.created_at as joined_at', 'memberships.source'] as const;

  return {
    /** One query for what the policy needs: undefined when the org does not exist, else the user's role in it. */
    async roleIn(orgId: string, userId: string): Promise<{ role: OrgRole | null } | undefined> {
      const row = await db.selectFrom('orgs')
        .leftJoin('memberships', (join) => join.onRef('memberships.org_id', '=', 'orgs.id').on('memberships.user_id', '=', userId))
        .select('memberships.role')
        .where('orgs.id', '=', orgId)
        .executeTakeFirst();
      return row && { role: row.role ?? null };
    },

    page(orgId: string, page: Page): Promise<Paged<MemberRow>> {
      return paginate(joined().where('memberships.org_id', '=', orgId), page,
        (q) => q.select(COLUMNS).orderBy('memberships.created_at').orderBy('memberships.user_id'));
    },

    async byUser(orgId: string, userId: string): Promise<MemberRow | undefined> {
      return joined().select(COLUMNS).where('memberships.org_id', '=', orgId).where('memberships.user_id', '=', userId).executeTakeFirst();
    },

    async insert(orgId: string, userId: string, role: OrgRole, at: string): Promise<void> {
      await db.insertInto('memberships').values({ org_id: orgId, user_id: userId, role, created_at: at }).execute();
    },

    async setRole(orgId: string, userId: string, role: OrgRole): Promise<void> {
      await db.updateTable('memberships').set({ role }).where('org_id', '=', orgId).where('user_id', '=', userId).execute();
    },

    async delete(orgId: string, userId: string): Promise<boolean> {
      const result = await db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async ownerCount(orgId: string): Promise<number> {
      const row = await db.selectFrom('memberships').where('org_id', '=', orgId).where('role', '=', 'owner')
        .select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async orgIdsOf(userId: string): Promise<string[]> {
      const rows = await db.selectFrom('memberships').select('org_id').where('user_id', '=', userId).execute();
      return rows.map((r) => r.org_id);
    },

    /** Those of `userIds` that belong to the org. */
    async membersAmong(orgId: string, userIds: string[]): Promise<Set<string>> {
      if (userIds.length === 0) return new Set();
      const rows = await db.selectFrom('memberships').select('user_id')
        .where('org_id', '=', orgId).where('user_id', 'in', userIds).execute();
      return new Set(rows.map((r) => r.user_id));
    },

    async removeFromTeams(orgId: string, userId: string): Promise<void> {
      await db.deleteFrom('team_members').where('user_id', '=', userId)
        .where('team_id', 'in', (eb) => eb.selectFrom('teams').select('id').where('org_id', '=', orgId))
        .execute();
    },
  };
}
export type MemberStore = ReturnType<typeof memberStore>;
