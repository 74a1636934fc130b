import type { Kysely } from 'kysely';
import { randomBytes } from 'node:crypto';
import type { Database, UserRow } from '../db/schema.js';
import { inFuture, now } from '../db/time.js';

export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/** The cookie only carries a session id; the row is what makes logout final. */
export function sessionStore(db: Kysely<Database>) {
  return {
    /** forgeToken: the sign-in access token, already sealed (forge-token.ts). */
    async create(userId: string, forgeToken: string | null = null): Promise<string> {
      const id = randomBytes(32).toString('base64url');
      await db.insertInto('sessions')
        .values({ id, user_id: userId, created_at: now(), expires_at: inFuture(SESSION_LIFETIME_MS), forge_token: forgeToken })
        .execute();
      return id;
    },

    /** The sealed forge token kept with a live session, if any. */
    async forgeTokenOf(sessionId: string): Promise<string | null> {
      const row = await db.selectFrom('sessions').select('forge_token')
        .where('id', '=', sessionId).where('expires_at', '>', now()).executeTakeFirst();
      return row?.forge_token ?? null;
    },

    async userOf(sessionId: string): Promise<UserRow | undefined> {
      return db.selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .selectAll('users')
        .where('sessions.id', '=', sessionId)
        .where('sessions.expires_at', '>', now())
        .executeTakeFirst();
    },

    async destroy(sessionId: string): Promise<void> {
      await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
    },

    async pruneExpired(): Promise<void> {
      await db.deleteFrom('sessions').where('expires_at', '<=', now()).execute();
    },
  };
}
export type SessionStore = ReturnType<typeof sessionStore>;
