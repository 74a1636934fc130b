import type { Kysely } from 'kysely';

/**
 * A SAML sign-in is bound to the browser that started it (login CSRF, #43): the Response is posted
 * cross-site, so a victim's browser could post an attacker's own valid Response.
 * - `saml_requests` gains `binding_hash`: the SHA-256 of the random value in the binding cookie set
 *   at /auth/login. Its rows live ten minutes and no release has them yet, so the table is made anew
 *   (a sign-in started before the upgrade starts again) rather than given a column with a default.
 * - `saml_answers`: a verified Response waiting for its browser, by the SHA-256 of its one-time
 *   ticket; the sign-in completes only where the binding cookie matches, and the row goes at the
 *   first try or by `expires_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('saml_requests').execute();
  await createRequests(db, true);

  await db.schema.createTable('saml_answers')
    .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('binding_hash', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saml_answers_expiry').on('saml_answers').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('saml_answers').execute();
  await db.schema.dropTable('saml_requests').execute();
  await createRequests(db, false);
}

async function createRequests(db: Kysely<unknown>, bound: boolean): Promise<void> {
  let table = db.schema.createTable('saml_requests')
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull());
  if (bound) table = table.addColumn('binding_hash', 'text', (c) => c.notNull());
  await table
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_requests_pk', ['provider_id', 'request_id'])
    .execute();
  await db.schema.createIndex('saml_requests_expiry').on('saml_requests').column('expires_at').execute();
}
