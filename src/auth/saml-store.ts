import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUniqueViolation } from '../db/errors.js';
import { now } from '../db/time.js';

/** The AuthnRequests awaiting an answer and the assertions already used, shared by every instance. */
export function samlStore(db: Kysely<Database>) {
  return {
    async savePending(row: { providerId: string; requestId: string; returnTo: string; createdAt: string; expiresAt: string }): Promise<void> {
      await db.insertInto('saml_requests').values({
        provider_id: row.providerId, request_id: row.requestId, return_to: row.returnTo, created_at: row.createdAt, expires_at: row.expiresAt,
      }).execute();
    },

    /** A request still awaiting its answer: when it was sent and where the browser goes after. */
    pending(providerId: string, requestId: string): Promise<{ created_at: string; return_to: string } | undefined> {
      return db.selectFrom('saml_requests').select(['created_at', 'return_to'])
        .where('provider_id', '=', providerId).where('request_id', '=', requestId).where('expires_at', '>', now())
        .executeTakeFirst();
    },

    async removePending(providerId: string, requestId: string): Promise<void> {
      await db.deleteFrom('saml_requests').where('provider_id', '=', providerId).where('request_id', '=', requestId).execute();
    },

    /** Records an assertion's use; false when it was used before (on any instance). */
    async useAssertionOnce(providerId: string, assertionId: string, expiresAt: string): Promise<boolean> {
      try {
        await db.insertInto('saml_assertions').values({ provider_id: providerId, assertion_id: assertionId, expires_at: expiresAt }).execute();
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async anyAssertionUsed(providerId: string, assertionIds: string[]): Promise<boolean> {
      if (assertionIds.length === 0) return false;
      const row = await db.selectFrom('saml_assertions').select('assertion_id')
        .where('provider_id', '=', providerId).where('assertion_id', 'in', assertionIds).executeTakeFirst();
      return row !== undefined;
    },

    /** Housekeeping: unanswered requests past their time, and assertions that have expired and so cannot be replayed anyway. */
    async prune(at: string): Promise<number> {
      const requests = await db.deleteFrom('saml_requests').where('expires_at', '<', at).executeTakeFirst();
      const assertions = await db.deleteFrom('saml_assertions').where('expires_at', '<', at).executeTakeFirst();
      return Number(requests.numDeletedRows) + Number(assertions.numDeletedRows);
    },
  };
}
export type SamlStore = ReturnType<typeof samlStore>;
