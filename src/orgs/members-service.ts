import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { UserStore } from '../users/store.js';
import type { Page } from '../db/page.js';
import type { OrgRole } from '../db/schema.js';
import type { InTransaction } from '../db/transaction.js';
import { conflict, HttpProblem, notFound } from '../problem.js';
import { now } from '../db/time.js';
import type { Policy } from '../policy.js';
import type { MemberRow, MemberStore } from './members-store.js';
import type { OrgTx } from './service.js';

const ORG = 'The organization';
const lastOwner = () => conflict('An organization must keep at least one owner; make someone else an owner first.');

export function memberService(members: MemberStore, users: UserStore, policy: Policy, inTransaction: InTransaction<OrgTx>, audit: AuditStore) {
  /** Locks the org row first, so the owner count read below cannot go stale before commit. */
  async function lockOrg(tx: OrgTx, orgId: string): Promise<void> {
    if (!(await tx.orgs.lock(orgId))) throw notFound(ORG);
  }
  const inOrg = (orgId: string) => ({ orgId, what: ORG });

  return {
    async list(actor: Actor, orgId: string, page: Page) {
      await policy.require(actor, 'member.read', inOrg(orgId));
      return members.page(orgId, page);
    },

    async get(actor: Actor, orgId: string, userId: string): Promise<MemberRow> {
      await policy.require(actor, 'member.read', inOrg(orgId));
      const member = await members.byUser(orgId, userId);
      if (!member) throw notFound('The member');
      return member;
    },

    /** Adds the user, or changes their role. `created` tells which. */
    async put(actor: Actor, orgId: string, userId: string, role: OrgRole, ip: string): Promise<{ member: MemberRow; created: boolean }> {
      await policy.require(actor, 'member.manage', inOrg(orgId));
      const user = await users.byId(userId);
      // Users exist once they have signed in; checked explicitly so the rule survives other ways of creating them.
      if (!user?.last_login_at) {
        throw new HttpProblem(404, 'The user was not found; people can be added once they have signed in.');
      }
      const before = await inTransaction(async (tx) => {
        await lockOrg(tx, orgId);
        const current = await tx.members.byUser(orgId, userId);
        if (!current) {
          await tx.members.insert(orgId, userId, role, now());
        } else if (current.role !== role) {
          if (current.role === 'owner' && (await tx.members.ownerCount(orgId)) <= 1) throw lastOwner();
          await tx.members.setRole(orgId, userId, role);
        }
        return current;
      });
      const target = { type: 'user', id: userId };
      if (!before) {
        await audit.record({ action: 'member.added', actor: actor.user, orgId, ip, target, details: { login: user.login, role } });
      } else if (before.role !== role) {
        await audit.record({ action: 'member.role_changed', actor: actor.user, orgId, ip, target, details: { login: user.login, from: before.role, to: role } });
      }
      const member = await members.byUser(orgId, userId);
      if (!member) throw notFound('The member');
      return { member, created: !before };
    },

    /** Removes the user from the org and from its teams. */
    async remove(actor: Actor, orgId: string, userId: string, ip: string): Promise<void> {
      await policy.require(actor, 'member.manage', inOrg(orgId));
      const removed = await inTransaction(async (tx) => {
        await lockOrg(tx, orgId);
        const current = await tx.members.byUser(orgId, userId);
        if (!current) throw notFound('The member');
        if (current.role === 'owner' && (await tx.members.ownerCount(orgId)) <= 1) throw lastOwner();
        await tx.members.removeFromTeams(orgId, userId);
        await tx.members.delete(orgId, userId);
        return current;
      });
      await audit.record({ action: 'member.removed', actor: actor.user, orgId, ip, target: { type: 'user', id: userId }, details: { login: removed.login, role: removed.role } });
    },
  };
}
