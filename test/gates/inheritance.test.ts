import { describe, expect, it } from 'vitest';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { seedRepository } from '../support/scans.js';
import { policyStore } from '../../src/gates/store.js';
import type { PolicyDocument } from '../../src/gates/schema.js';

const ORG: PolicyDocument = { fail_on_new: 'high', max_open: { critical: 0 } };
const OWN: PolicyDocument = { licenses: { deny: ['AGPL-3.0-only'] } };

describe.each(DB_KINDS)('which policy applies, on %s', (kind) => {
  const db = useMigratedDatabase(kind);

  it.each([
    ['neither set one: an empty policy of the organization', null, null, { source: 'organization', document: {} }],
    ['only the organization: its policy', ORG, null, { source: 'organization', document: ORG }],
    ['only the repository: its own', null, OWN, { source: 'repository', document: OWN }],
    ['both: the repository\'s own, not merged', ORG, OWN, { source: 'repository', document: OWN }],
    ['an own empty policy overrides the organization\'s', ORG, {}, { source: 'repository', document: {} }],
  ] as const)('%s', async (_name, org, own, expected) => {
    const repoId = await seedRepository(db());
    const policies = policyStore(db().kysely);
    const { org_id: orgId } = await db().kysely.selectFrom('repos').select('org_id').where('id', '=', repoId).executeTakeFirstOrThrow();
    const at = new Date().toISOString();
    if (org) await policies.setOrgPolicy(orgId, org, at);
    if (own) await policies.setRepoPolicy(repoId, own, at);
    expect(await policies.effectivePolicy(repoId)).toEqual(expected);
    // Inheriting again (null) falls back to the organization's.
    await policies.setRepoPolicy(repoId, null, at);
    expect((await policies.effectivePolicy(repoId)).source).toBe('organization');
  });

  it('goes with its organization or repository', async () => {
    const repoId = await seedRepository(db());
    const policies = policyStore(db().kysely);
    const { org_id: orgId } = await db().kysely.selectFrom('repos').select('org_id').where('id', '=', repoId).executeTakeFirstOrThrow();
    await policies.setOrgPolicy(orgId, ORG, new Date().toISOString());
    await policies.setRepoPolicy(repoId, OWN, new Date().toISOString());
    await db().kysely.deleteFrom('orgs').where('id', '=', orgId).execute();
    expect(await db().kysely.selectFrom('org_policies').selectAll().where('org_id', '=', orgId).execute()).toEqual([]);
    expect(await db().kysely.selectFrom('repo_policies').selectAll().where('repository_id', '=', repoId).execute()).toEqual([]);
  });
});
