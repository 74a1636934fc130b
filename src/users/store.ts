import { sql, type Kysely } from 'kysely';
import type { Database, UserRow } from '../db/schema.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';

export interface ForgeIdentity {
  providerId: string;
  forgeUserId: string;
  login: string;
  name: string | null;
  email: string | null;
  avatarUrl: string | null;
}

export function userStore(db: Kysely<Database>) {
  return {
    byId(id: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Keyed by (provider, forge user id), never by email: emails change hands, ids do not. */
    async upsertForgeUser(identity: ForgeIdentity): Promise<UserRow> {
      const at = now();
      const fields = { login: identity.login, name: identity.name, email: identity.email, avatar_url: identity.avatarUrl };
      const existing = await db.selectFrom('users').select('id')
        .where('provider_id', '=', identity.providerId)
        .where('forge_user_id', '=', identity.forgeUserId)
        .executeTakeFirst();
      if (existing) {
        await db.updateTable('users').set({ ...fields, updated_at: at, last_login_at: at })
          .where('id', '=', existing.id).execute();
        return (await this.byId(existing.id))!;
      }
      const id = newId();
      await db.insertInto('users').values({
        id, ...fields, is_admin: 0, provider_id: identity.providerId, forge_user_id: identity.forgeUserId,
        created_at: at, updated_at: at, last_login_at: at,
      }).execute();
      return (await this.byId(id))!;
    },

    /** Whether a local user (the dev user) was ever created. */
    async hasLocalUser(): Promise<boolean> {
      return (await db.selectFrom('users').select('id').where('provider_id', 'is', null).limit(1).executeTakeFirst()) !== undefined;
    },

    async upsertDevUser(): Promise<UserRow> {
      const at = now();
      const existing = await db.selectFrom('users').selectAll()
        .where('provider_id', 'is', null).where('login', '=', 'dev').executeTakeFirst();
      if (existing) {
        await db.updateTable('users').set({ last_login_at: at }).where('id', '=', existing.id).execute();
        return { ...existing, last_login_at: at };
      }
      const user = {
        id: newId(), login: 'dev', name: 'Development User', email: null, avatar_url: null, is_admin: 1,
        provider_id: null, forge_user_id: null, created_at: at, updated_at: at, last_login_at: at,
      };
      await db.insertInto('users').values(user).execute();
      return user;
    },

    orgRoles(userId: string): Promise<{ id: string; name: string; role: string }[]> {
      return db.selectFrom('memberships')
        .innerJoin('orgs', 'orgs.id', 'memberships.org_id')
        .select(['orgs.id', 'orgs.name', 'memberships.role'])
        .where('memberships.user_id', '=', userId)
        .orderBy('orgs.name_key')
        .execute();
    },

    /** Signed-in users whose login starts with `prefix`, ignoring case; `%`, `_` and `\` in it are literal. */
    searchByLogin(prefix: string, limit: number): Promise<Pick<UserRow, 'id' | 'login' | 'name' | 'avatar_url'>[]> {
      const pattern = `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return db.selectFrom('users').select(['id', 'login', 'name', 'avatar_url'])
        .where(sql<boolean>`lower(login) like ${pattern} escape '\\'`)
        .where('last_login_at', 'is not', null)
        .orderBy('login').orderBy('id').limit(limit).execute();
    },
  };
}
export type UserStore = ReturnType<typeof userStore>;
