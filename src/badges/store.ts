import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

export function badgeStore(db: Kysely<Database>) {
  return {
    /** One token per repository: a new one replaces (rotates) the old. */
    async setToken(repositoryId: string, tokenHash: string, at: string): Promise<void> {
      await db.insertInto('badge_tokens').values({ repository_id: repositoryId, token_hash: tokenHash, created_at: at })
        .onConflict((oc) => oc.column('repository_id').doUpdateSet({ token_hash: tokenHash, created_at: at }))
        .execute();
    },

    async tokenHash(repositoryId: string): Promise<string | undefined> {
      const row = await db.selectFrom('badge_tokens').select('token_hash').where('repository_id', '=', repositoryId).executeTakeFirst();
      return row?.token_hash;
    },
  };
}
export type BadgeStore = ReturnType<typeof badgeStore>;
