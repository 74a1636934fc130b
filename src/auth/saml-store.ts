import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUniqueViolation } from '../db/errors.js';
import { now } from '../db/time.js';

/** A verified Response waiting for the browser that started the sign-in. */
export interface SamlAnswerRow {
  provider_id: string;
  binding_hash: string;
  answer: string;
  return_to: string;
  expires_at: string;
}

/** The AuthnRequests awaiting an answer, the answers awaiting their browser and the assertions already used, shared by every instance. */
export function samlStore(db: Kysely<Database>) {
  return {
    async savePending(row: { providerId: string; requestId: string; bindingHash: string; returnTo: string; createdAt: string; expiresAt: string }): Promise<void> {
      await db.insertInto('saml_requests').values({
        provider_id: row.providerId, request_id: row.requestId, binding_hash: row.bindingHash, return_to: row.returnTo, created_at: row.createdAt, expires_at: row.expiresAt,
      }).execute();
    },

    /** A request still awaiting its answer: when it was sent, the browser it is bound to and where that browser goes after. */
    pending(providerId: string, requestId: string): Promise<{ created_at: string; binding_hash: string; return_to: string } | undefined> {
      return db.selectFrom('saml_requests').select(['created_at', 'binding_hash', 'return_to'])
        .where('provider_id', '=', providerId).where('request_id', '=', requestId).where('expires_at', '>', now())
        .executeTakeFirst();
    },

    async removePending(providerId: string, requestId: string): Promise<void> {
      await db.deleteFrom('saml_requests').where('provider_id', '=', providerId).where('request_id', '=', requestId).execute();
    },

    async saveAnswer(row: SamlAnswerRow & { ticket_hash: string }): Promise<void> {
      await db.insertInto('saml_answers').values(row).execute();
    },

    /** The answer a ticket names, removed in the same statement: a ticket is used once, by whichever instance asks first. */
    takeAnswer(ticketHash: string): Promise<SamlAnswerRow | undefined> {
      return db.deleteFrom('saml_answers').where('ticket_hash', '=', ticketHash)
        .returning(['provider_id', 'binding_hash', 'answer', 'return_to', 'expires_at']).executeTakeFirst();
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

    /** Housekeeping: unanswered requests and untaken answers past their time, and assertions that have expired and so cannot be replayed anyway. */
    async prune(at: string): Promise<number> {
      const requests = await db.deleteFrom('saml_requests').where('expires_at', '<', at).executeTakeFirst();
      const answers = await db.deleteFrom('saml_answers').where('expires_at', '<', at).executeTakeFirst();
      const assertions = await db.deleteFrom('saml_assertions').where('expires_at', '<', at).executeTakeFirst();
      return Number(requests.numDeletedRows) + Number(answers.numDeletedRows) + Number(assertions.numDeletedRows);
    },
  };
}
export type SamlStore = ReturnType<typeof samlStore>;
