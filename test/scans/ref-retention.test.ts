import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { createScans } from '../../src/scans/index.js';
import { loadConfig } from '../../src/config.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { quietLog, seedRepository, statusRow, storeUpload } from '../support/scans.js';

const DAY = 86_400_000;

describe.each(DB_KINDS)('ref retention on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const unused = async (): Promise<never> => {
    throw new Error('not used');
  };
  const scansWith = (days: string) => createScans(loadConfig({ SERVICE_REF_RETENTION_DAYS: days }), db, unused);
  /** Only Date is set; timers, and so the database drivers, run as usual. */
  const setClock = (at: number) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at);
  };
  const refNames = async (repo: string) =>
    (await db.kysely.selectFrom('refs').select('name').where('repository_id', '=', repo).orderBy('name').execute()).map((r) => r.name);
  const rows = async (table: 'findings' | 'components' | 'analyses', repo: string) =>
    (await db.kysely.selectFrom(table).select('id').where('repository_id', '=', repo).execute()).length;
  const bom = JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.5', version: 1,
    metadata: { tools: { components: [{ type: 'application', name: 'syft', version: '1.0.0' }] } },
    components: [{ type: 'library', name: 'left-pad', version: '1.0.0' }],
  });

  it('removes idle branches and pull requests with their results, never the default branch or a tag', async () => {
    const scans = scansWith('90');
    const repo = await seedRepository(db, 'idle');
    const start = Date.parse('2026-03-01T00:00:00.000Z');
    setClock(start);
    for (const ref of [undefined, 'feature/idle', 'refs/pull/5/merge', 'refs/tags/v1', 'feature/busy']) {
      await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }, { rule: 's', file: 'b.js' }]), '', ref);
      await storeUpload(scans, repo, bom, '', ref);
    }
    await scans.drain(quietLog);
    expect(await refNames(repo)).toEqual(['feature/busy', 'feature/idle', 'main', 'pr/5', 'v1']);
    const mainBefore = await statusRow(db, repo);

    setClock(start + 60 * DAY);
    await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }]), '', 'feature/busy');
    await scans.drain(quietLog);

    setClock(start + 89 * DAY);
    expect(await scans.pruneIdleRefs()).toBe(0);

    setClock(start + 91 * DAY);
    expect(await scans.pruneIdleRefs()).toBe(2);
    expect(await refNames(repo)).toEqual(['feature/busy', 'main', 'v1']);
    // Three refs' results are left: two findings and a component each (feature/busy's newest scan fixed one).
    expect(await rows('analyses', repo)).toBe(6);
    expect(await rows('findings', repo)).toBe(6);
    expect(await rows('components', repo)).toBe(3);
    expect(await statusRow(db, repo)).toEqual(mainBefore);

    setClock(start + 400 * DAY);
    expect(await scans.pruneIdleRefs()).toBe(1);
    expect(await refNames(repo)).toEqual(['main', 'v1']);
    // The uploads stay as history.
    expect(await db.kysely.selectFrom('uploads').select('id').where('repository_id', '=', repo).execute()).toHaveLength(11);
  });

  it('recreates a ref removed while its upload waited, and can remove it again later', async () => {
    const scans = scansWith('90');
    const repo = await seedRepository(db, 'waiting');
    const start = Date.parse('2026-03-01T00:00:00.000Z');
    setClock(start);
    await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }]), '', 'feature/slow');
    await db.kysely.deleteFrom('refs').where('repository_id', '=', repo).execute();
    await scans.drain(quietLog);
    expect(await refNames(repo)).toEqual(['feature/slow']);
    expect(await rows('findings', repo)).toBe(1);
    setClock(start + 91 * DAY);
    expect(await scans.pruneIdleRefs()).toBe(1);
    expect(await refNames(repo)).toEqual([]);
  });

  it('keeps the configured default branch, and everything when the retention is 0', async () => {
    const repo = await seedRepository(db, 'develop');
    await db.kysely.updateTable('repos').set({ default_branch: 'refs/heads/develop' }).where('id', '=', repo).execute();
    const scans = scansWith('90');
    const start = Date.parse('2026-03-01T00:00:00.000Z');
    setClock(start);
    await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }]), '', 'develop');
    await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }]), '', 'main');
    await scans.drain(quietLog);
    setClock(start + 365 * DAY);
    expect(await scansWith('0').pruneIdleRefs()).toBe(0);
    expect(await refNames(repo)).toEqual(['develop', 'main']);
    expect(await scans.pruneIdleRefs()).toBe(1);
    expect(await refNames(repo)).toEqual(['develop']);
  });
});
