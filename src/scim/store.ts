import type { Kysely } from 'kysely';
import type { Database, ScimUserRow, TeamRow } from '../db/schema.js';
import type { Condition } from './filter.js';

export type UserCondition = Condition<'user_name_key' | 'external_id' | 'id'>;
export type GroupCondition = Condition<'name_key' | 'external_id' | 'id' | 'member'>;

/** A SCIM Group: its team and its externalId. */
export type ScimGroupRow = TeamRow & { external_id: string | null };
/** One member of a group as SCIM sees it: the SCIM user, and its userName to show as `display`. */
export interface ScimGroupMember { team_id: string; scim_user_id: string; user_name: string }

/** Which accounts an org's SCIM users may be linked to: one provider's (null: none may be). */
export interface LinkScope { providerId: string | null }

/** SQL for SCIM provisioning: tokens, provisioned users and groups, and what de-provisioning takes away. */
export function scimStore(db: Kysely<Database>) {
  /** The team memberships a SCIM team should hold: its group's members linked to an account that is a member of the org. */
  const wantedTeamMembers = (orgId: string) => db.selectFrom('scim_group_members as gm')
    .innerJoin('scim_users as su', 'su.id', 'gm.scim_user_id')
    .innerJoin('memberships as m', (j) => j.onRef('m.user_id', '=', 'su.user_id').on('m.org_id', '=', orgId))
    .where('su.active', '=', 1).where('su.org_id', '=', orgId);

  return {
    async tokenOf(tokenHash: string): Promise<{ org_id: string; provider_id: string | null } | undefined> {
      return db.selectFrom('scim_tokens').select(['org_id', 'provider_id']).where('token_hash', '=', tokenHash).executeTakeFirst();
    },

    /** One token per org: a new one replaces the old at once. */
    async setToken(orgId: string, tokenHash: string, providerId: string | null, at: string): Promise<void> {
      await db.insertInto('scim_tokens').values({ org_id: orgId, token_hash: tokenHash, provider_id: providerId, created_at: at })
        .onConflict((oc) => oc.column('org_id').doUpdateSet({ token_hash: tokenHash, provider_id: providerId, created_at: at })).execute();
    },

    async byId(orgId: string, id: string): Promise<ScimUserRow | undefined> {
      return db.selectFrom('scim_users').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    async page(orgId: string, conditions: UserCondition[], offset: number, limit: number): Promise<{ total: number; rows: ScimUserRow[] }> {
      let q = db.selectFrom('scim_users').where('org_id', '=', orgId);
      for (const c of conditions) q = q.where(c.attribute, '=', c.value);
      const total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const rows = limit === 0 ? [] : await q.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute();
      return { total, rows };
    },

    async insert(row: ScimUserRow): Promise<void> {
      await db.insertInto('scim_users').values(row).execute();
    },

    async update(id: string, fields: Partial<Omit<ScimUserRow, 'id' | 'org_id' | 'created_at'>>): Promise<void> {
      await db.updateTable('scim_users').set(fields).where('id', '=', id).execute();
    },

    async delete(id: string): Promise<void> {
      await db.deleteFrom('scim_users').where('id', '=', id).execute();
    },

    /**
     * The account of the org's trusted provider whose sub is the externalId, else whose login is the
     * userName. Only that provider's: another provider's account with the same login is someone else.
     */
    async accountFor(scope: LinkScope, externalId: string | null, userName: string): Promise<string | undefined> {
      if (scope.providerId === null) return undefined;
      const accounts = db.selectFrom('users').select('id').where('provider_id', '=', scope.providerId).orderBy('created_at');
      if (externalId !== null) {
        const bySub = await accounts.where('forge_user_id', '=', externalId).executeTakeFirst();
        if (bySub) return bySub.id;
      }
      return (await accounts.where('login', '=', userName).executeTakeFirst())?.id;
    },

    /**
     * SCIM users waiting for this account's first sign-in: of the orgs whose trusted provider is the
     * one it signed in with (`orNull`: also orgs whose token names none, when this is the only
     * OpenID Connect or SAML provider).
     */
    async pendingFor(account: { providerId: string; sub: string; login: string }, orNull: boolean): Promise<ScimUserRow[]> {
      return db.selectFrom('scim_users').innerJoin('scim_tokens', 'scim_tokens.org_id', 'scim_users.org_id').selectAll('scim_users')
        .where('scim_users.user_id', 'is', null).where('scim_users.active', '=', 1)
        .where((eb) => eb.or([eb('scim_tokens.provider_id', '=', account.providerId), ...(orNull ? [eb('scim_tokens.provider_id', 'is', null)] : [])]))
        .where((eb) => eb.or([eb('scim_users.external_id', '=', account.sub), eb('scim_users.user_name', '=', account.login)])).execute();
    },

    /** Adds the membership (source "scim") unless the user already is a member, however they became one. */
    async grant(orgId: string, userId: string, at: string): Promise<void> {
      await db.insertInto('memberships').values({ org_id: orgId, user_id: userId, role: 'member', source: 'scim', created_at: at })
        .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing()).execute();
    },

    /**
     * De-provisioning from one org: the membership and the org's team memberships go, so every
     * session and key of the person loses the org at their next request (memberships are read on
     * every request). Keys narrowed to this org alone are deleted, and this org is taken out of
     * keys narrowed to it among others, so re-provisioning does not bring them back. When the person
     * is left in no org at all, their sessions and keys end too: they reached nothing else.
     * Returns the role the person had (null: not a member), whether they were its last owner, and the
     * key ids to forget from caches.
     */
    async revoke(orgId: string, userId: string): Promise<{ role: string | null; lastOwner: boolean; keys: string[] }> {
      const member = await db.selectFrom('memberships').select('role').where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
      const owners = member?.role === 'owner'
        ? Number((await db.selectFrom('memberships').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('role', '=', 'owner').executeTakeFirstOrThrow()).n)
        : 0;
      await db.deleteFrom('team_members').where('user_id', '=', userId)
        .where('team_id', 'in', (eb) => eb.selectFrom('teams').select('id').where('org_id', '=', orgId)).execute();
      await db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute();

      const elsewhere = await db.selectFrom('memberships').select('org_id').where('user_id', '=', userId).executeTakeFirst();
      const keys = await db.selectFrom('api_keys').select(['id', 'org_ids']).where('user_id', '=', userId).execute();
      const touched: string[] = [];
      for (const key of keys) {
        const orgIds = key.org_ids === null ? null : (JSON.parse(key.org_ids) as string[]);
        if (!elsewhere || orgIds?.every((id) => id === orgId)) {
          await db.deleteFrom('api_keys').where('id', '=', key.id).execute();
          touched.push(key.id);
        } else if (orgIds?.includes(orgId)) {
          await db.updateTable('api_keys').set({ org_ids: JSON.stringify(orgIds.filter((id) => id !== orgId)) }).where('id', '=', key.id).execute();
          touched.push(key.id);
        }
      }
      if (!elsewhere) await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
      return { role: member?.role ?? null, lastOwner: owners === 1, keys: touched };
    },

    // Groups.

    async groupById(orgId: string, id: string): Promise<ScimGroupRow | undefined> {
      return db.selectFrom('teams').innerJoin('scim_groups', 'scim_groups.team_id', 'teams.id').selectAll('teams').select('scim_groups.external_id')
        .where('teams.org_id', '=', orgId).where('teams.id', '=', id).executeTakeFirst();
    },

    async groupPage(orgId: string, conditions: GroupCondition[], offset: number, limit: number): Promise<{ total: number; rows: ScimGroupRow[] }> {
      let q = db.selectFrom('teams').innerJoin('scim_groups', 'scim_groups.team_id', 'teams.id').where('teams.org_id', '=', orgId);
      for (const c of conditions) {
        if (c.attribute === 'member') {
          q = q.where((eb) => eb.exists(eb.selectFrom('scim_group_members').select('team_id')
            .whereRef('scim_group_members.team_id', '=', 'teams.id').where('scim_group_members.scim_user_id', '=', c.value)));
        } else if (c.attribute === 'external_id') q = q.where('scim_groups.external_id', '=', c.value);
        else q = q.where(`teams.${c.attribute}`, '=', c.value);
      }
      const total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const rows = limit === 0 ? [] : await q.selectAll('teams').select('scim_groups.external_id')
        .orderBy('teams.created_at').orderBy('teams.id').limit(limit).offset(offset).execute();
      return { total, rows };
    },

    /** The members of these groups, in the order the service shows them. */
    async groupMembers(teamIds: string[]): Promise<ScimGroupMember[]> {
      if (teamIds.length === 0) return [];
      return db.selectFrom('scim_group_members').innerJoin('scim_users', 'scim_users.id', 'scim_group_members.scim_user_id')
        .select(['scim_group_members.team_id', 'scim_group_members.scim_user_id', 'scim_users.user_name'])
        .where('scim_group_members.team_id', 'in', teamIds).orderBy('scim_users.created_at').orderBy('scim_users.id').execute();
    },

    /** Which of these ids are SCIM users of the org. */
    async usersAmong(orgId: string, ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      return (await db.selectFrom('scim_users').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute()).map((r) => r.id);
    },

    async insertGroup(team: TeamRow, externalId: string | null): Promise<void> {
      await db.insertInto('teams').values(team).execute();
      await db.insertInto('scim_groups').values({ team_id: team.id, external_id: externalId }).execute();
    },

    async updateGroup(teamId: string, fields: Pick<TeamRow, 'name' | 'name_key' | 'updated_at'>, externalId: string | null): Promise<void> {
      await db.updateTable('teams').set(fields).where('id', '=', teamId).execute();
      await db.updateTable('scim_groups').set({ external_id: externalId }).where('team_id', '=', teamId).execute();
    },

    async setGroupMembers(teamId: string, scimUserIds: string[]): Promise<void> {
      await db.deleteFrom('scim_group_members').where('team_id', '=', teamId).execute();
      if (scimUserIds.length > 0) {
        await db.insertInto('scim_group_members').values(scimUserIds.map((scim_user_id) => ({ team_id: teamId, scim_user_id }))).execute();
      }
    },

    /** Deleting the team deletes the group, its members, the team's members and its repository grants (foreign keys). */
    async deleteGroup(teamId: string): Promise<void> {
      await db.deleteFrom('teams').where('id', '=', teamId).execute();
    },

    /** The team's members become exactly its group's members who are linked, active and members of the org. */
    async syncTeam(orgId: string, teamId: string): Promise<void> {
      await db.deleteFrom('team_members').where('team_id', '=', teamId).execute();
      await db.insertInto('team_members').columns(['team_id', 'user_id', 'source'])
        .expression(wantedTeamMembers(orgId).where('gm.team_id', '=', teamId)
          .select((eb) => [eb.val(teamId).as('team_id'), 'su.user_id', eb.val('scim').as('source')]).distinct())
        .execute();
    },

    /** The same for one account across the org's SCIM teams, after it was linked, activated or deactivated. */
    async syncUserTeams(orgId: string, userId: string): Promise<void> {
      await db.deleteFrom('team_members').where('user_id', '=', userId)
        .where('team_id', 'in', db.selectFrom('teams').select('id').where('org_id', '=', orgId).where('source', '=', 'scim')).execute();
      await db.insertInto('team_members').columns(['team_id', 'user_id', 'source'])
        .expression(wantedTeamMembers(orgId).where('su.user_id', '=', userId)
          .select((eb) => ['gm.team_id', 'su.user_id', eb.val('scim').as('source')]).distinct())
        .execute();
    },
  };
}
export type ScimStore = ReturnType<typeof scimStore>;
