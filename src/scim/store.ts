import type { Kysely } from 'kysely';
import type { Database, ScimUserRow } from '../db/schema.js';

export type ScimFilter = { attribute: 'user_name_key' | 'external_id'; value: string } | null;

/** SQL for SCIM provisioning: tokens, provisioned users, and what de-provisioning takes away. */
export function scimStore(db: Kysely<Database>) {
  return {
    async orgOfToken(tokenHash: string): Promise<string | undefined> {
      return (await db.selectFrom('scim_tokens').select('org_id').where('token_hash', '=', tokenHash).executeTakeFirst())?.org_id;
    },

    /** One token per org: a new one replaces the old at once. */
    async setToken(orgId: string, tokenHash: string, at: string): Promise<void> {
      await db.insertInto('scim_tokens').values({ org_id: orgId, token_hash: tokenHash, created_at: at })
        .onConflict((oc) => oc.column('org_id').doUpdateSet({ token_hash: tokenHash, created_at: at })).execute();
    },

    async byId(orgId: string, id: string): Promise<ScimUserRow | undefined> {
      return db.selectFrom('scim_users').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    async page(orgId: string, filter: ScimFilter, offset: number, limit: number): Promise<{ total: number; rows: ScimUserRow[] }> {
      let q = db.selectFrom('scim_users').where('org_id', '=', orgId);
      if (filter) q = q.where(filter.attribute, '=', filter.value);
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

    /** The account whose sign-in has sub (forge user id) = externalId, else login = userName. */
    async accountFor(externalId: string | null, userName: string): Promise<string | undefined> {
      if (externalId !== null) {
        const bySub = await db.selectFrom('users').select('id').where('forge_user_id', '=', externalId).orderBy('created_at').executeTakeFirst();
        if (bySub) return bySub.id;
      }
      return (await db.selectFrom('users').select('id').where('login', '=', userName).where('provider_id', 'is not', null).orderBy('created_at').executeTakeFirst())?.id;
    },

    /** SCIM users waiting for this account's first sign-in. */
    async pendingFor(forgeUserId: string, loginKey: string): Promise<ScimUserRow[]> {
      return db.selectFrom('scim_users').selectAll().where('user_id', 'is', null).where('active', '=', 1)
        .where((eb) => eb.or([eb('external_id', '=', forgeUserId), eb('user_name_key', '=', loginKey)])).execute();
    },

    /** Adds the membership (source "scim") unless the user already is a member, however they became one. */
    async grant(orgId: string, userId: string, at: string): Promise<void> {
      await db.insertInto('memberships').values({ org_id: orgId, user_id: userId, role: 'member', source: 'scim', created_at: at })
        .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing()).execute();
    },

    /**
     * De-provisioning: out of the org and its teams, and every session and API key of the account
     * gone, so the next request of that person is refused. Returns the key ids to forget from caches.
     */
    async revoke(orgId: string, userId: string): Promise<string[]> {
      await db.deleteFrom('team_members').where('user_id', '=', userId)
        .where('team_id', 'in', (eb) => eb.selectFrom('teams').select('id').where('org_id', '=', orgId)).execute();
      await db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
      await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
      const keys = await db.selectFrom('api_keys').select('id').where('user_id', '=', userId).execute();
      await db.deleteFrom('api_keys').where('user_id', '=', userId).execute();
      return keys.map((k) => k.id);
    },
  };
}
export type ScimStore = ReturnType<typeof scimStore>;
