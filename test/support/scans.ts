import { createHash } from 'node:crypto';
import pino from 'pino';
import type { Db } from '../../src/db/index.js';
import { newId } from '../../src/db/ids.js';
import { now } from '../../src/db/time.js';
import { createScans, type Scans } from '../../src/scans/index.js';
import { loadConfig } from '../../src/config.js';
import { notFound } from '../../src/problem.js';
import { detectFormat } from '../../src/scans/detect.js';
import { parseRef } from '../../src/domain/ref-name.js';

export const quietLog = pino({ level: 'silent' });

/** An org and a repository inserted directly, for tests below the HTTP layer. */
export async function seedRepository(db: Db, name = 'repo'): Promise<string> {
  const at = now();
  const orgId = newId();
  const repoId = newId();
  await db.kysely.insertInto('orgs').values({ id: orgId, name: `org-${orgId}`, name_key: `org-${orgId}`, description: '', created_at: at, updated_at: at }).execute();
  await db.kysely.insertInto('repos').values({ id: repoId, org_id: orgId, name, name_key: name, url: null, default_branch: null, created_at: at, updated_at: at }).execute();
  return repoId;
}

export function scansFor(db: Db): Scans {
  const refuse = async (): Promise<never> => {
    throw notFound('The repository');
  };
  return createScans(loadConfig({}), db, refuse);
}

/**
 * Stores a document as an upload (as the upload route does, without HTTP), to `ref` (the default
 * branch, main, when absent); a pull request's base is main.
 */
export async function storeUpload(scans: Scans, repoId: string, content: string | Buffer, category = '', ref?: string): Promise<string> {
  const body = Buffer.isBuffer(content) ? content : Buffer.from(content);
  const id = newId();
  const read = parseRef(ref ?? 'main');
  await scans.uploads.insert({
    id, repository_id: repoId, format: detectFormat(body, {}).format, size_bytes: body.length, sha256: createHash('sha256').update(body).digest('hex'),
    category, commit_sha: null, ref: ref ?? null, ref_kind: read.kind, ref_name: read.name,
    base_ref: read.kind === 'pull_request' ? 'main' : null, created_by: null, api_key_id: null,
  }, body);
  return id;
}

/** The repository's status row as stored. */
export function statusRow(db: Db, repoId: string) {
  return db.kysely.selectFrom('repo_status').selectAll().where('repository_id', '=', repoId).executeTakeFirst();
}
