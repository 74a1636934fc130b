import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Objects in the store whose upload_contents row is gone, waiting to be deleted there. Rows go in
 * many ways (retention, an analysis, ref, repository or organisation deleted: the last three by
 * cascade), and none of them can reach the object store inside its transaction; a trigger on the
 * row's delete records the object's URL in the same transaction, so no way of deleting leaves an
 * object behind, and housekeeping deletes the recorded objects afterwards (scans/upload-store.ts).
 * On PostgreSQL once per statement, over the deleted rows as a transition table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('blob_deletions').addColumn('url', 'text', (c) => c.primaryKey()).execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function upload_contents_forget_blobs() returns trigger language plpgsql as $$
      begin
        insert into blob_deletions (url) select blob_url from removed_contents where blob_url is not null
          on conflict do nothing;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger upload_contents_forget_blobs after delete on upload_contents
      referencing old table as removed_contents for each statement execute function upload_contents_forget_blobs()`.execute(db);
  } else {
    await sql`
      create trigger upload_contents_forget_blobs after delete on upload_contents
      when old.blob_url is not null
      begin
        insert or ignore into blob_deletions (url) values (old.blob_url);
      end`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger upload_contents_forget_blobs on upload_contents`.execute(db);
    await sql`drop function upload_contents_forget_blobs()`.execute(db);
  } else {
    await sql`drop trigger upload_contents_forget_blobs`.execute(db);
  }
  await db.schema.dropTable('blob_deletions').execute();
}
