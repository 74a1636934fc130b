import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { conflictOnDuplicate } from '../../src/db/errors.js';
import { HttpProblem } from '../../src/problem.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { seedRepository } from '../support/scans.js';

describe.each(DB_KINDS)('constraint violations on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  const insertRepo = (id: string, orgId: string, name: string) => () => db.kysely.insertInto('repos').values({
    id, org_id: orgId, name, name_key: name, url: null, default_branch: null, created_at: 'now', updated_at: 'now',
  }).execute();
  const problemOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

  it('turns a duplicate into 409 and a vanished parent into 404, and lets other errors through', async () => {
    const repoId = await seedRepository(db, 'taken');
    const { org_id: orgId } = await db.kysely.selectFrom('repos').select('org_id').where('id', '=', repoId).executeTakeFirstOrThrow();
    const duplicate = await problemOf(conflictOnDuplicate(insertRepo('r2', orgId, 'taken'), 'Already there.', 'The organization'));
    expect(duplicate).toBeInstanceOf(HttpProblem);
    expect(duplicate).toMatchObject({ status: 409, detail: 'Already there.' });

    const orphan = await problemOf(conflictOnDuplicate(insertRepo('r3', 'deleted-org', 'x'), 'Already there.', 'The organization'));
    expect(orphan).toMatchObject({ status: 404, detail: 'The organization was not found.' });

    const withoutParent = await problemOf(conflictOnDuplicate(insertRepo('r4', 'deleted-org', 'y'), 'Already there.'));
    expect(withoutParent).not.toBeInstanceOf(HttpProblem);
  });
});
