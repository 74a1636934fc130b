import type { Actor } from '../auth/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { Page } from '../http/pagination.js';
import { notFound } from '../http/problem.js';
import { conflictOnDuplicate } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { OrgStore, OrgWithCounts } from './store.js';
import type { OrgPolicy } from './policy.js';
import type { InOrgTransaction } from './transaction.js';
import type { CreateOrgBody, UpdateOrgBody } from './presenter.js';
import { nameKey } from './names.js';

const ORG = 'The organization';
const duplicate = (name: string) => `An organization named "${name}" already exists (names are compared ignoring case).`;

export function orgService(orgs: OrgStore, policy: OrgPolicy, inTransaction: InOrgTransaction, audit: AuditStore) {
  async function load(id: string): Promise<OrgWithCounts> {
    const org = await orgs.byId(id);
    if (!org) throw notFound(ORG);
    return org;
  }

  return {
    list: (actor: Actor, q: string, page: Page) => orgs.page(policy.listScope(actor), q, page),

    async get(actor: Actor, id: string): Promise<OrgWithCounts> {
      await policy.authorize(actor, id, 'read', ORG);
      return load(id);
    },

    async create(actor: Actor, body: CreateOrgBody, ip: string): Promise<OrgWithCounts> {
      policy.authorizeCreateOrg(actor);
      const at = now();
      const org = { id: newId(), name: body.name, name_key: nameKey(body.name), description: body.description ?? '', created_at: at, updated_at: at };
      // The creator becomes the owner in the same transaction: an org never exists without one.
      await conflictOnDuplicate(() => inTransaction(async (tx) => {
        await tx.orgs.insert(org);
        await tx.members.insert(org.id, actor.user.id, 'owner', at);
      }), duplicate(body.name));
      await audit.record({ action: 'org.created', actor: actor.user, orgId: org.id, ip, target: { type: 'org', id: org.id }, details: { name: org.name } });
      return { ...org, repo_count: 0 };
    },

    async update(actor: Actor, id: string, body: UpdateOrgBody, ip: string): Promise<OrgWithCounts> {
      await policy.authorize(actor, id, 'manage', ORG);
      const fields = {
        ...(body.name !== undefined ? { name: body.name, name_key: nameKey(body.name) } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
      };
      await conflictOnDuplicate(() => orgs.update(id, { ...fields, updated_at: now() }), duplicate(body.name ?? ''));
      const org = await load(id);
      await audit.record({ action: 'org.updated', actor: actor.user, orgId: id, ip, target: { type: 'org', id }, details: body });
      return org;
    },

    async delete(actor: Actor, id: string, ip: string): Promise<void> {
      await policy.authorize(actor, id, 'manage', ORG);
      // Foreign keys cascade: repos, teams, memberships, uploads and findings go with it.
      if (!(await orgs.delete(id))) throw notFound(ORG);
      await audit.record({ action: 'org.deleted', actor: actor.user, orgId: id, ip, target: { type: 'org', id } });
    },
  };
}
export type OrgService = ReturnType<typeof orgService>;
