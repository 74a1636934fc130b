import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/** SERVICE_ADMINS login entries, each pinned to the forge account of its first sign-in. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  await db.schema.createTable('admin_pins')
    .addColumn('entry', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('forge_user_id', 'text', (c) => c.notNull())
    .addColumn('pinned_at', ts, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('admin_pins').execute();
}
