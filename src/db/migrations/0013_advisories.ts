import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * The OSV advisory database and what matching needs. An advisory's affected packages are rows keyed
 * by `package_key` (OSV ecosystem + normalised name), and components gain the same key, so finding
 * the advisories of an SBOM, or the components an import touched, is an indexed equality join.
 * OSV timestamps are kept as UTC ISO text: a newer `modified` is a greater string. Components stored
 * before this migration have no key until their analysis receives its next SBOM (computing one
 * needs purl parsing, which belongs to the application, not to a migration).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  await db.schema.createTable('advisories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('modified', 'text', (c) => c.notNull())
    .addColumn('published', 'text')
    .addColumn('withdrawn', 'text')
    .addColumn('aliases', 'text', (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('details', 'text')
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('cvss_score', 'real')
    .addColumn('imported_at', ts, (c) => c.notNull())
    .execute();

  await db.schema.createTable('advisory_aliases')
    .addColumn('alias', 'text', (c) => c.notNull())
    .addColumn('advisory_id', 'text', (c) => c.notNull().references('advisories.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('advisory_aliases_pk', ['alias', 'advisory_id'])
    .execute();
  await db.schema.createIndex('advisory_aliases_advisory').on('advisory_aliases').column('advisory_id').execute();

  await db.schema.createTable('advisory_packages')
    .addColumn('advisory_id', 'text', (c) => c.notNull().references('advisories.id').onDelete('cascade'))
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addColumn('ecosystem', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('package_key', 'text')
    .addColumn('ranges', 'text', (c) => c.notNull())
    .addColumn('versions', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('advisory_packages_pk', ['advisory_id', 'ordinal'])
    .execute();
  await db.schema.createIndex('advisory_packages_key').on('advisory_packages').column('package_key').execute();

  // One row per configured sync URL: its HTTP validators, the outcome of the last attempt, and a
  // lease so that one instance at a time fetches it.
  await db.schema.createTable('advisory_sources')
    .addColumn('url', 'text', (c) => c.primaryKey())
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    .addColumn('checked_at', 'text')
    .addColumn('synced_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('added', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unchanged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rejected', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'text')
    .addColumn('lease_token', 'text')
    .execute();

  await db.schema.alterTable('components').addColumn('package_key', 'text').execute();
  await db.schema.createIndex('components_package_key').on('components').column('package_key').execute();
  // A vulnerability finding's other names and the nearest fixed versions (JSON arrays), null for others.
  await db.schema.alterTable('findings').addColumn('aliases', 'text').execute();
  await db.schema.alterTable('findings').addColumn('fixed_versions', 'text').execute();
  // Components of an SBOM whose ecosystem or version cannot be ordered: counted, never guessed.
  await db.schema.alterTable('uploads').addColumn('components_unchecked', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').dropColumn('components_unchecked').execute();
  await db.schema.alterTable('findings').dropColumn('fixed_versions').execute();
  await db.schema.alterTable('findings').dropColumn('aliases').execute();
  await db.schema.dropIndex('components_package_key').execute();
  await db.schema.alterTable('components').dropColumn('package_key').execute();
  await db.schema.dropTable('advisory_sources').execute();
  await db.schema.dropTable('advisory_packages').execute();
  await db.schema.dropTable('advisory_aliases').execute();
  await db.schema.dropTable('advisories').execute();
}
