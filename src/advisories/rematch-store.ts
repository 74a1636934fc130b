import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import { REMATCH_FORMAT } from '../domain/rematch.js';

const CHUNK = 5000;

/**
 * Queues a re-match job (see REMATCH_FORMAT)
 * for every ref with a component among these package keys, unless one is already waiting. Found
 * through the components' package_key index, never by scanning. Returns how many were queued.
 */
export async function enqueueRematch(db: Kysely<Database>, keys: string[]): Promise<number> {
  const refs = new Map<string, { repository_id: string; kind: string; name: string }>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const rows = await db.selectFrom('components')
      .innerJoin('analyses', 'analyses.id', 'components.analysis_id')
      .innerJoin('refs', 'refs.id', 'analyses.ref_id')
      .select(['refs.id', 'refs.repository_id', 'refs.kind', 'refs.name'])
      .where('components.package_key', 'in', keys.slice(i, i + CHUNK))
      .distinct().execute();
    for (const row of rows) refs.set(row.id, row);
  }
  let queued = 0;
  for (const ref of refs.values()) {
    const waiting = await db.selectFrom('uploads').select('id')
      .where('repository_id', '=', ref.repository_id).where('ref_kind', '=', ref.kind).where('ref_name', '=', ref.name)
      .where('format', '=', REMATCH_FORMAT).where('status', '=', 'pending').executeTakeFirst();
    if (waiting) continue;
    await db.insertInto('uploads').values({
      id: newId(), repository_id: ref.repository_id, format: REMATCH_FORMAT, status: 'pending', sha256: '', size_bytes: 0,
      category: 'advisories', commit_sha: null, ref: null, ref_kind: ref.kind, ref_name: ref.name, base_ref: null,
      created_by: null, api_key_id: null, created_at: now(),
    }).execute();
    queued++;
  }
  return queued;
}
