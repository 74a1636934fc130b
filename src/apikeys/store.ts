import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database, UserRow } from '../db/schema.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { now } from '../db/time.js';
import { compiledOnce } from '../db/compiled.js';

export type NewApiKey = Omit<ApiKeyRow, 'last_used_at'>;

export function apiKeyStore(db: Kysely<Database>) {
  // Every API request asks this. Parameters: the key's hash, then the time now (unexpired keys only).
  const activeKey = compiledOnce(db, db.selectFrom('api_keys').innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'users.id', 'users.login', 'users.name', 'users.email', 'users.avatar_url', 'users.is_admin', 'users.provider_id', 'users.forge_user_id',
      'users.created_at', 'users.updated_at', 'users.last_login_at',
    ])
    .select([
      'api_keys.id as key_id', 'api_keys.name as key_name', 'api_keys.prefix as key_prefix', 'api_keys.key_hash',
      'api_keys.scope', 'api_keys.org_ids', 'api_keys.created_at as key_created_at', 'api_keys.expires_at',
      'api_keys.last_used_at',
    ])
    .where('api_keys.key_hash', '=', '')
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', '')])));
  return {
    async insert(key: NewApiKey): Promise<void> {
      await db.insertInto('api_keys').values({ ...key, last_used_at: null }).execute();
    },

    page(userId: string, page: Page): Promise<Paged<ApiKeyRow>> {
      return paginate(db.selectFrom('api_keys').where('user_id', '=', userId), page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
    },

    async delete(userId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('api_keys').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The live key with this hash and its user, in one query; expired keys are not found. */
    async findActive(keyHash: string): Promise<{ key: ApiKeyRow; user: UserRow } | undefined> {
      const [row] = await activeKey(keyHash, now());
      if (!row) return undefined;
      const { key_id, key_name, key_prefix, key_hash, scope, org_ids, key_created_at, expires_at, last_used_at, ...user } = row;
      return {
        key: { id: key_id, user_id: user.id, name: key_name, prefix: key_prefix, key_hash, scope, org_ids, created_at: key_created_at, expires_at, last_used_at },
        user,
      };
    },

    async touch(id: string, at: string): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}
export type ApiKeyStore = ReturnType<typeof apiKeyStore>;
