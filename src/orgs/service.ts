import type { Actor } from '../domain/actor.js';
import type { BaseRole } from '../db/schema.js';
import type { AuditStore } from '../audit/store.js';
import type { Page } from '../db/page.js';
import type { InTransaction } from '../db/transaction.js';
import { notFound } from '../problem.js';
import { conflictOnDuplicate } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { Policy } from '../policy.js';
import type { OrgStore, OrgWithCounts } from './store.js';
import type { MemberStore } from './members-store.js';
import { nameKey } from './names.js';

export interface NewOrg {
  name: string;
  description?: string;
}
/** Fields left out keep their value. `base_role`: what every member may do to every repository (policy.ts). */
export type OrgChanges = Partial<NewOrg> & { base_role?: BaseRole };

/** An org and its first owner are written together: an org never exists without one. */
export type OrgTx = { orgs: OrgStore; members: MemberStore };

const ORG = 'The organization';
const duplicate = (name: string) => `An organization named "${name}" already exists (names are compared ignoring case).`;

export function orgService(orgs: OrgStore, policy: Policy, inTransaction: InTransaction<OrgTx>, audit: AuditStore) {
  /** The org, its repo_count what the actor may read. */
  async function load(id: string, actor: Actor): Promise<OrgWithCounts> {
    const org = await orgs.byId(id, policy.repoReader(actor));
    if (!org) throw notFound(ORG);
    return org;
  }
  const inOrg = (orgId: string) => ({ orgId, what: ORG });

  return {
    list: (actor: Actor, q: string, page: Page) => orgs.page(policy.orgListScope(actor), q, page),

    async get(actor: Actor, id: string): Promise<OrgWithCounts> {
      await policy.require(actor, 'org.read', inOrg(id));
      return load(id, actor);
    },

    async create(actor: Actor, input: NewOrg, ip: string): Promise<OrgWithCounts> {
      await policy.require(actor, 'org.create');
      const at = now();
      const org = { id: newId(), name: input.name, name_key: nameKey(input.name), description: input.description ?? '', base_role: 'read' as const, ci_default_rule: 1, created_at: at, updated_at: at };
      await conflictOnDuplicate(() => inTransaction(async (tx) => {
        await tx.orgs.insert(org);
        await tx.members.insert(org.id, actor.user.id, 'owner', at);
      }), duplicate(input.name));
      await audit.record({ action: 'org.created', actor: actor.user, orgId: org.id, ip, target: { type: 'org', id: org.id }, details: { name: org.name } });
      return { ...org, repo_count: 0 };
    },

    async update(actor: Actor, id: string, changes: OrgChanges, ip: string): Promise<OrgWithCounts> {
      await policy.require(actor, 'org.manage', inOrg(id));
      const fields = {
        ...(changes.name !== undefined ? { name: changes.name, name_key: nameKey(changes.name) } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        ...(changes.base_role !== undefined ? { base_role: changes.base_role } : {}),
      };
      await conflictOnDuplicate(() => orgs.update(id, { ...fields, updated_at: now() }), duplicate(changes.name ?? ''));
      const org = await load(id, actor);
      await audit.record({ action: 'org.updated', actor: actor.user, orgId: id, ip, target: { type: 'org', id }, details: changes });
      return org;
    },

    async delete(actor: Actor, id: string, ip: string): Promise<void> {
      await policy.require(actor, 'org.manage', inOrg(id));
      // Foreign keys cascade: repos, teams, memberships, uploads and findings go with it.
      if (!(await orgs.delete(id))) throw notFound(ORG);
      await audit.record({ action: 'org.deleted', actor: actor.user, orgId: id, ip, target: { type: 'org', id } });
    },
  };
}
