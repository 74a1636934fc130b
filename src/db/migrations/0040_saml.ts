import type { Kysely } from 'kysely';

/**
 * SAML 2.0 sign-in. The IdP's answer arrives by a cross-site POST, which carries no SameSite=Lax
 * cookie, so what a sign-in must remember lives here, shared by every instance:
 * - `saml_requests`: the AuthnRequests sent and not yet answered (their ID is the Response's
 *   InResponseTo), with where to send the browser after; one answer each, gone by `expires_at`.
 * - `saml_assertions`: the ids of assertions accepted, kept until they expire, so none is used twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('saml_requests')
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_requests_pk', ['provider_id', 'request_id'])
    .execute();
  await db.schema.createIndex('saml_requests_expiry').on('saml_requests').column('expires_at').execute();

  await db.schema.createTable('saml_assertions')
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('assertion_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_assertions_pk', ['provider_id', 'assertion_id'])
    .execute();
  await db.schema.createIndex('saml_assertions_expiry').on('saml_assertions').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('saml_assertions').execute();
  await db.schema.dropTable('saml_requests').execute();
}
