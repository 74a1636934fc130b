import type { Kysely } from 'kysely';
import type { AdminPinRow, Database } from '../db/schema.js';
import { now } from '../db/time.js';

/** Which forge account each SERVICE_ADMINS login entry was pinned to by its first sign-in. */
export function adminPinStore(db: Kysely<Database>) {
  return {
    byEntry(entry: string): Promise<AdminPinRow | undefined> {
      return db.selectFrom('admin_pins').selectAll().where('entry', '=', entry).executeTakeFirst();
    },

    /** The first pin of an entry wins, also between instances signing people in at once. */
    async pin(entry: string, providerId: string, forgeUserId: string): Promise<AdminPinRow> {
      await db.insertInto('admin_pins')
        .values({ entry, provider_id: providerId, forge_user_id: forgeUserId, pinned_at: now() })
        .onConflict((oc) => oc.column('entry').doNothing())
        .execute();
      return (await this.byEntry(entry))!;
    },
  };
}
export type AdminPinStore = ReturnType<typeof adminPinStore>;
