import type { Kysely } from 'kysely';
import { randomBytes } from 'node:crypto';
import type { Database, UserRow } from '../db/schema.js';
import { inFuture, now } from '../db/time.js';

export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/** The cookie only carries a session id; the row is what makes logout final. */
export function sessionStore(db: Kysely<Database>) {
  return {
    async create(userId: string): Promise<string> {
      const id = randomBytes(32).toString('base64url');
      await db.insertInto('sessions')
        .values({ id, user_id: userId, created_at: now(), expires_at: inFuture(SESSION_LIFETIME_MS) })
        .execute();
      return id;
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
