import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { createScans } from '../../src/scans/index.js';
import { loadConfig } from '../../src/config.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { quietLog, seedRepository, statusRow, storeUpload } from '../support/scans.js';

describe.each(DB_KINDS)('raw upload retention on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  const unused = async (): Promise<never> => {
    throw new Error('not used');
  };
  const scansWith = (days: string) => createScans(loadConfig({ SERVICE_RAW_RETENTION_DAYS: days }), db, unused);
  const contents = async () => (await db.kysely.selectFrom('upload_contents').select('upload_id').execute()).map((r) => r.upload_id);

  it('prunes the bytes of completed uploads past the retention and keeps their results', async () => {
    const scans = scansWith('30');
    const repo = await seedRepository(db, 'kept');
    const old = await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }]));
    const recent = await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }, { rule: 's', file: 'b.js' }]));
    await scans.drain(quietLog);
    const waiting = await storeUpload(scans, repo, sarifLog([]));
    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await db.kysely.updateTable('uploads').set({ completed_at: longAgo }).where('id', '=', old).execute();
    await db.kysely.updateTable('uploads').set({ created_at: longAgo }).where('id', '=', waiting).execute();

    expect(await scans.pruneRawContents()).toBe(1);
    expect((await contents()).sort()).toEqual([recent, waiting].sort());
    expect((await scans.uploads.byId(old))!).toMatchObject({ status: 'complete', new_count: 1 });
    expect(await statusRow(db, repo)).toMatchObject({ open_medium: 2 });
  });

  it('keeps everything when the retention is 0', async () => {
    const scans = scansWith('0');
    const repo = await seedRepository(db, 'forever');
    const id = await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }]));
    await scans.drain(quietLog);
    await db.kysely.updateTable('uploads').set({ completed_at: '2001-01-01T00:00:00.000Z' }).where('id', '=', id).execute();
    expect(await scans.pruneRawContents()).toBe(0);
    expect(await contents()).toContain(id);
  });
});
