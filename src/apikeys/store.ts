import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database, UserRow } from '../db/schema.js';
import type { Page } from '../http/pagination.js';
import { now } from '../db/time.js';

export type NewApiKey = Omit<ApiKeyRow, 'last_used_at'>;

export function apiKeyStore(db: Kysely<Database>) {
  return {
    async insert(key: NewApiKey): Promise<void> {
      await db.insertInto('api_keys').values({ ...key, last_used_at: null }).execute();
    },

    async page(userId: string, page: Page): Promise<{ total: number; items: ApiKeyRow[] }> {
      const base = db.selectFrom('api_keys').where('user_id', '=', userId);
      const [count, items] = await Promise.all([
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        base.selectAll().orderBy('created_at').orderBy('id').limit(page.perPage).offset(page.offset).execute(),
      ]);
      return { total: Number(count.n), items };
    },

    async byId(userId: string, id: string): Promise<ApiKeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
    },

    async delete(userId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('api_keys').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The live key with this hash and its user; expired keys are not found. */
    async findActive(keyHash: string): Promise<{ key: ApiKeyRow; user: UserRow } | undefined> {
      const key = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
      if (!key || (key.expires_at !== null && key.expires_at <= now())) return undefined;
      const user = await db.selectFrom('users').selectAll().where('id', '=', key.user_id).executeTakeFirst();
      return user ? { key, user } : undefined;
    },

    async touch(id: string, at: string): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}
export type ApiKeyStore = ReturnType<typeof apiKeyStore>;
