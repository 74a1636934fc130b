import { describe, expect, it } from 'vitest';
import type { Actor, KeyScope } from '../../src/domain/actor.js';
import type { OrgRole, UserRow } from '../../src/db/schema.js';
import { createPolicy, type OrgAction, type SiteAction } from '../../src/policy.js';

const ORG = 'org-1';
const OTHER = 'org-2';

function actor(options: { admin?: boolean; key?: { scope: KeyScope; orgIds: string[] | null } } = {}): Actor {
  const user = { id: 'u1', login: 'u1' } as UserRow;
  const key = options.key ? { id: 'k1', ...options.key } : null;
  return { user, isAdmin: options.admin ?? false, via: key ? 'api_key' : 'session', sessionId: key ? null : 's1', key };
}

/** The org exists; `role` is the user's role in it (null: not a member). */
const policyWith = (role: OrgRole | null, mine: string[] = role ? [ORG] : []) => createPolicy({
  roleIn: async (orgId) => (orgId === ORG ? { role } : undefined),
  orgIdsOf: async () => mine,
});

/**
 * What a repository read with the actor's roles carries (repos/service.ts inRepo): the org's base role
 * "read", so that a member holds triage on it and an owner admin, as before teams held repositories.
 */
const BASE_READ = { baseRole: 'read', teamRole: null } as const;

const outcome = (promise: Promise<unknown>) => promise.then(() => 'allowed', (error: { status?: number }) => error.status ?? 'threw');

describe('the policy', () => {
  // who, their role in the org, the action, and the answer: allowed, 404 (not visible) or 403.
  const orgCases: [string, Actor, OrgRole | null, OrgAction, 'allowed' | 403 | 404][] = [
    ['a member', actor(), 'member', 'org.read', 'allowed'],
    ['a member', actor(), 'member', 'scan.upload', 'allowed'],
    ['a member', actor(), 'member', 'org.manage', 403],
    ['a member', actor(), 'member', 'audit.read', 403],
    ['an owner', actor(), 'owner', 'repo.manage', 'allowed'],
    ['an owner', actor(), 'owner', 'audit.read', 'allowed'],
    ['a member', actor(), 'member', 'analysis.read', 'allowed'],
    ['a member', actor(), 'member', 'analysis.delete', 403],
    ['an owner', actor(), 'owner', 'analysis.delete', 'allowed'],
    ['a stranger', actor(), null, 'analysis.delete', 404],
    ['a member', actor(), 'member', 'finding.read', 'allowed'],
    ['a member', actor(), 'member', 'finding.triage', 'allowed'],
    ['a stranger', actor(), null, 'finding.triage', 404],
    ['a write key of a member', actor({ key: { scope: 'write', orgIds: null } }), 'member', 'finding.triage', 'allowed'],
    ['an upload key of a member', actor({ key: { scope: 'upload', orgIds: null } }), 'member', 'finding.triage', 403],
    ['a member', actor(), 'member', 'suppression.read', 'allowed'],
    ['a member', actor(), 'member', 'suppression.manage', 403],
    ['an owner', actor(), 'owner', 'suppression.manage', 'allowed'],
    ['a member', actor(), 'member', 'webhook.read', 403],
    ['a member', actor(), 'member', 'webhook.manage', 403],
    ['an owner', actor(), 'owner', 'webhook.manage', 'allowed'],
    ['a read key of an owner', actor({ key: { scope: 'read', orgIds: null } }), 'owner', 'webhook.read', 'allowed'],
    ['a stranger', actor(), null, 'webhook.read', 404],
    ['a stranger', actor(), null, 'org.read', 404],
    ['a stranger', actor(), null, 'org.manage', 404],
    ['an administrator', actor({ admin: true }), null, 'team.manage', 'allowed'],
    ['a read key of an owner', actor({ key: { scope: 'read', orgIds: null } }), 'owner', 'org.read', 'allowed'],
    ['a key narrowed to another org', actor({ key: { scope: 'write', orgIds: [OTHER] } }), 'owner', 'org.read', 404],
    ["an administrator's key narrowed to another org", actor({ admin: true, key: { scope: 'write', orgIds: [OTHER] } }), null, 'repo.read', 404],
    ['a member', actor(), 'member', 'policy.read', 'allowed'],
    ['a member', actor(), 'member', 'gate.read', 'allowed'],
    ['a member', actor(), 'member', 'policy.manage', 403],
    ['a member', actor(), 'member', 'badge.manage', 403],
    ['an owner', actor(), 'owner', 'policy.manage', 'allowed'],
    ['an owner', actor(), 'owner', 'badge.manage', 'allowed'],
    ['a stranger', actor(), null, 'gate.read', 404],
  ];
  it.each(orgCases)('%s (%s) doing %s: %s', async (_who, who, role, action, expected) => {
    expect(await outcome(policyWith(role).require(who, action, { orgId: ORG, what: 'The organization', repo: BASE_READ }))).toBe(expected);
  });

  it('answers 404 for an org that does not exist, naming what was asked for', async () => {
    await expect(policyWith('owner').require(actor(), 'repo.read', { orgId: 'missing', what: 'The repository' }))
      .rejects.toMatchObject({ status: 404, detail: 'The repository was not found.' });
  });

  it('decides from a role read with the target, without asking again', async () => {
    const policy = createPolicy({ roleIn: () => Promise.reject(new Error('asked')), orgIdsOf: () => Promise.reject(new Error('asked')) });
    expect(await outcome(policy.require(actor(), 'repo.read', { orgId: ORG, what: 'The repository', role: 'member', repo: BASE_READ }))).toBe('allowed');
    expect(await outcome(policy.require(actor(), 'repo.manage', { orgId: ORG, what: 'The repository', role: 'member', repo: BASE_READ }))).toBe(403);
    expect(await outcome(policy.require(actor(), 'repo.read', { orgId: ORG, what: 'The repository', role: null, repo: BASE_READ }))).toBe(404);
    // With base_role "none" a member holds only what their teams do: nothing here, so the repository is not theirs to see.
    expect(await outcome(policy.require(actor(), 'repo.read', { orgId: ORG, what: 'The repository', role: 'member', repo: { baseRole: 'none', teamRole: null } }))).toBe(404);
    expect(await outcome(policy.require(actor(), 'finding.triage', { orgId: ORG, what: 'The repository', role: 'member', repo: { baseRole: 'none', teamRole: 'read' } }))).toBe(403);
  });

  const siteCases: [string, Actor, SiteAction, 'allowed' | 403][] = [
    ['a user', actor(), 'org.create', 'allowed'],
    ['a key narrowed to some orgs', actor({ key: { scope: 'write', orgIds: [ORG] } }), 'org.create', 403],
    ['a user', actor(), 'audit.read_site', 403],
    ['an administrator', actor({ admin: true }), 'audit.read_site', 'allowed'],
    ['a user', actor(), 'advisory.import', 403],
    ['an administrator', actor({ admin: true }), 'advisory.import', 'allowed'],
    ['a user', actor(), 'advisory.sources', 403],
    ['an administrator', actor({ admin: true }), 'advisory.sources', 'allowed'],
    ['a read key', actor({ key: { scope: 'read', orgIds: null } }), 'advisory.read', 'allowed'],
    ['a read key', actor({ key: { scope: 'read', orgIds: null } }), 'component.search', 'allowed'],
    ['a read key', actor({ key: { scope: 'read', orgIds: [ORG] } }), 'user.search', 'allowed'],
  ];
  it.each(siteCases)('%s doing %s: %s', async (_who, who, action, expected) => {
    expect(await outcome(policyWith(null).require(who, action))).toBe(expected);
  });

  it('shows a narrowed key only its orgs, and lets a key be narrowed only to the user\'s orgs', async () => {
    const orgs = [{ id: ORG }, { id: OTHER }];
    expect(policyWith('member').visibleOrgs(actor({ key: { scope: 'read', orgIds: [OTHER] } }), orgs)).toEqual([{ id: OTHER }]);
    expect(policyWith('member').visibleOrgs(actor(), orgs)).toEqual(orgs);
    expect([...await policyWith('member').orgsBeyondReach(actor(), [ORG, OTHER])]).toEqual([OTHER]);
    // An administrator reaches every org that exists (OTHER does not, in these lookups).
    expect([...await policyWith(null).orgsBeyondReach(actor({ admin: true }), [ORG, OTHER, ORG])]).toEqual([OTHER]);
  });
});
